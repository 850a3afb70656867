package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.platform.EnlistmentGuard;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.queue.Worker;
import com.teamdesk.tasks.task.ledger.LedgerBreaker;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * Readiness of this server (served at {@code /health}): PostgreSQL answers, Redis answers, when the
 * worker is enabled it runs and wrote its heartbeat within the heartbeat TTL (R22; a missing
 * heartbeat key is republished at once, see {@link Worker#isLive()}), and JTA transactions hold on
 * the worker's and the timers' threads (their startup enlistment probes passed, issue 10), and the
 * {@link LedgerBreaker} is closed (issue 28).
 *
 * <p>An EJB, so that every check runs inside an invocation of this application: the health endpoint calls
 * {@link TaskHealthCheck} on a thread of the server, where a bean this check is the first to use (the Redis client,
 * the breaker) would be created with the server's configuration instead of the WAR's (seen: a server polled from
 * its start used the default Redis prefix {@code teamdesk}, and its timers' setting read the default).
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class ReadinessProbe {

    @Inject
    Jdbc jdbc;

    @Inject
    RedisResources redis;

    @Inject
    TaskWorker taskWorker;

    @Inject
    EnlistmentGuard enlistment;

    @Inject
    LedgerBreaker breaker;

    /**
     * {@code teamdesk.timers.enabled}, read at each call from the application's own configuration. Not injected: a
     * readiness probe that polls from the start (a load balancer, the ITs' shared servers) can create this bean on
     * the health endpoint's thread while the application deploys, and an injected value then came from the server's
     * configuration (default true) and stayed: a server with timers off waited for a timer probe forever.
     */
    private static boolean timersEnabled() {
        return ConfigProvider.getConfig(ReadinessProbe.class.getClassLoader())
                .getOptionalValue("teamdesk.timers.enabled", Boolean.class).orElse(true);
    }

    /**
     * @return the readiness of this server, as {@link TaskHealthCheck} serves it
     */
    public HealthCheckResponse check() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("teamdesk-tasks");
        boolean up = true;
        try {
            boolean db = jdbc.withConnection(c -> c.isValid(2));
            b.withData("database", db ? "UP" : "DOWN");
            up &= db;
        } catch (Exception e) {
            b.withData("database", "DOWN: " + e.getClass().getSimpleName());
            up = false;
        }
        // issue 28: DOWN while this instance's breaker says the ledger is unreachable (liveness stays UP)
        b.withData("ledger", breaker.describe());
        up &= !breaker.isOpen();
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
        up &= enlisted(b, TxSite.WORKER, taskWorker.enabled());
        up &= enlisted(b, TxSite.TIMER, timersEnabled());
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
