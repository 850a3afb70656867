package com.teamdesk.tasks.task.engine;

import jakarta.ejb.EJBException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of this server, served at {@code /health} and {@code /health/ready}: what {@link ReadinessProbe} checks,
 * run inside an EJB invocation of the application (see there why). DOWN while the application is still deploying.
 */
@Readiness
@ApplicationScoped
public class TaskHealthCheck implements HealthCheck {

    @Inject
    ReadinessProbe probe;

    @Override
    public HealthCheckResponse call() {
        try {
            return probe.check();
        } catch (EJBException | IllegalStateException e) {
            return HealthCheckResponse.named("teamdesk-tasks").down().withData("starting", e.getClass().getSimpleName())
                    .build();
        }
    }
}
