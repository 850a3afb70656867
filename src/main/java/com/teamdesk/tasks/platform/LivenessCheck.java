package com.teamdesk.tasks.platform;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness ({@code /health/live}, issue 14): the JVM can serve a request. Deliberately nothing else: a
 * database or Redis outage makes the server not ready ({@code /health/ready}), never "restart me".
 */
@Liveness
@ApplicationScoped
public class LivenessCheck implements HealthCheck {

    @Override
    public HealthCheckResponse call() {
        Runtime rt = Runtime.getRuntime();
        return HealthCheckResponse.named("teamdesk-live").up()
                .withData("heapUsedMb", (rt.totalMemory() - rt.freeMemory()) / (1024 * 1024))
                .withData("heapMaxMb", rt.maxMemory() / (1024 * 1024)).build();
    }
}
