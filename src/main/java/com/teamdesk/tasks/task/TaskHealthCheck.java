package com.teamdesk.tasks.task;

import com.teamdesk.tasks.platform.EnlistmentGuard;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.queue.Queue;
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
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Readiness of this server (served at {@code /health}): PostgreSQL answers, Redis answers, when the
 * worker is enabled it runs and its heartbeat key is live in Redis (R22), and JTA transactions hold
 * on the worker's and the timers' threads (their startup enlistment probes passed, issue 10).
 */
@Readiness
@ApplicationScoped
public class TaskHealthCheck implements HealthCheck {

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    @Inject
    RedisResources redis;

    @Inject
    Queue queue;

    @Inject
    TaskWorker taskWorker;

    @Inject
    EnlistmentGuard enlistment;

    @Inject
    @ConfigProperty(name = "teamdesk.timers.enabled", defaultValue = "true")
    boolean timersEnabled;

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
            Optional<Worker> w = taskWorker.worker();
            boolean live = false;
            try {
                live = w.isPresent() && w.get().isRunning() && queue.liveWorkers().contains(w.get().workerId());
            } catch (RuntimeException e) {
                live = false;
            }
            b.withData("worker", live ? "UP " + w.get().workerId() : "DOWN");
            up &= live;
        } else {
            b.withData("worker", "disabled");
        }
        up &= enlisted(b, TxSite.WORKER, taskWorker.enabled());
        up &= enlisted(b, TxSite.TIMER, timersEnabled);
        if (enlistment.verdict(TxSite.REQUEST) == EnlistmentGuard.Verdict.NOT_ENLISTED) {
            b.withData("transactions.REQUEST", "DOWN: connections are not enlisted in JTA transactions (docs/platform.md)");
            up = false;
        }
        return b.status(up).build();
    }

    /**
     * Issue 10: a server whose transactions would not hold never reports ready. A required site must
     * have passed its startup probe; a site that failed is DOWN with the reason.
     */
    private boolean enlisted(HealthCheckResponseBuilder b, TxSite site, boolean required) {
        EnlistmentGuard.Verdict v = enlistment.verdict(site);
        String key = "transactions." + site;
        if (v == EnlistmentGuard.Verdict.NOT_ENLISTED) {
            b.withData(key, "DOWN: connections are not enlisted in JTA transactions (docs/platform.md)");
            return false;
        }
        if (v == null && required) {
            b.withData(key, "DOWN: enlistment probe not finished");
            return false;
        }
        b.withData(key, v == null ? "not used" : "UP");
        return true;
    }
}
