package com.teamdesk.tasks.task;

import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.queue.Worker;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.util.Optional;
import javax.sql.DataSource;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of this server (served at {@code /health}): PostgreSQL answers, Redis answers, and —
 * when the worker is enabled — it runs and wrote its heartbeat within the heartbeat TTL (R22; a missing
 * heartbeat key is republished at once, see {@link Worker#isLive()}).
 */
@Readiness
@ApplicationScoped
public class TaskHealthCheck implements HealthCheck {

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    @Inject
    RedisResources redis;

    @Inject
    TaskWorker taskWorker;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("teamdesk-tasks");
        boolean up = true;
        try (Connection c = dataSource.getConnection()) {
            boolean db = c.isValid(2);
            b.withData("database", db ? "UP" : "DOWN");
            up &= db;
        } catch (Exception e) {
            b.withData("database", "DOWN: " + e.getClass().getSimpleName());
            up = false;
        }
        try {
            redis.redis().ping();
            b.withData("redis", "UP");
        } catch (RuntimeException e) {
            b.withData("redis", "DOWN: " + e.getClass().getSimpleName());
            up = false;
        }
        if (taskWorker.enabled()) {
            // R22: judged by this worker's own last successful beat (in memory), so one lost key does not take
            // every instance out of a load balancer; a missing key is republished at once.
            Optional<Worker> w = taskWorker.worker();
            boolean live = w.isPresent() && w.get().isLive();
            String key = "";
            try {
                key = live && !w.get().heartbeatPublished() ? " (heartbeat key missing: republishing)" : "";
            } catch (RuntimeException e) {
                key = " (heartbeat key unknown: " + e.getClass().getSimpleName() + ")";
            }
            b.withData("worker", live ? "UP " + w.get().workerId() + key : "DOWN");
            up &= live;
        } else {
            b.withData("worker", "disabled");
        }
        return b.status(up).build();
    }
}
