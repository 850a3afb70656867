package com.teamdesk.tasks.platform;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.queue.WorkerInfo;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The connection budget of this instance (issue 17, docs/scaling.md). Per instance:
 * <ul>
 * <li>PostgreSQL: the pool ({@link AppDataSource#MAX_POOL}) plus the live listener's own connection; the
 * pool must cover {@code teamdesk.http.threads} + {@code teamdesk.worker.concurrency} + {@value #SWEEPS}
 * (one connection per EJB sweep);</li>
 * <li>Redis: {@link RedisResources#redisPool(int)} = 2 × concurrency + 16 (each job's commands and lock renewal, the
 * worker's fetch, stalled-check and heartbeat loops, dispatch and the API).</li>
 * </ul>
 * At startup and every 5 minutes it reads PostgreSQL's {@code max_connections} and
 * {@code superuser_reserved_connections}, counts the live instances (queue worker heartbeats that have
 * not expired and timer reports of the last {@link #LIVE_REPORT_AGE}, at least this one) and logs a WARNING when the settings
 * need more than the pool, or when the instances' connections together do not fit. A fresh verdict is
 * shown by {@code GET /api/v1/admin/capacity}. Best effort: a failed check is logged and retried.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionManagement(TransactionManagementType.BEAN)
public class ConnectionBudget {
    private static final Logger LOG = Logger.getLogger(ConnectionBudget.class.getName());

    /** Pool connections kept for the EJB sweeps: one each for dispatch, recovery, purge, idempotency, retention. */
    public static final int SWEEPS = 5;

    /** Connections outside the pool: the live listener's {@code LISTEN} connection. */
    public static final int OUTSIDE_POOL = 1;

    /** Connections left free for people and tools (psql, migrations, monitoring) besides the superuser reserve. */
    public static final int HEADROOM = 5;

    /**
     * The verdict of one check.
     *
     * @param instances       live instances counted (at least 1)
     * @param perInstance     PostgreSQL connections one instance may open (pool + outside)
     * @param poolMax         the pool's bound
     * @param poolNeeded      what the settings need: HTTP threads + concurrency + sweeps
     * @param redisPool       this instance's Redis pool bound
     * @param maxConnections  PostgreSQL's {@code max_connections}
     * @param reserved        its {@code superuser_reserved_connections}
     * @param fits            true when {@code poolNeeded <= poolMax} and
     *                        {@code instances × perInstance + reserved + HEADROOM <= maxConnections}
     * @param message         the verdict in words
     * @param at              when it was checked
     */
    public record Verdict(int instances, int perInstance, int poolMax, int poolNeeded, int redisPool, int maxConnections,
            int reserved, boolean fits, String message, Instant at) {
    }

    @Inject
    Jdbc jdbc;

    @Inject
    RedisResources redis;

    @Inject
    java.time.Clock clock;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.concurrency", defaultValue = "4")
    int concurrency;

    @Inject
    @ConfigProperty(name = "teamdesk.http.threads", defaultValue = "32")
    int httpThreads;

    private volatile Verdict last;

    /** @return the pool connections the settings need: HTTP threads + worker concurrency + {@value #SWEEPS} */
    public static int poolNeeded(int httpThreads, int concurrency) {
        return httpThreads + concurrency + SWEEPS;
    }

    /** @return how many instances with {@code perInstance} connections fit into {@code maxConnections} */
    public static int instancesThatFit(int maxConnections, int reserved, int perInstance) {
        return Math.max(0, (maxConnections - reserved - HEADROOM) / perInstance);
    }

    @PostConstruct
    void atStartup() {
        check();
    }

    @Schedule(minute = "*/5", hour = "*", persistent = false, info = "connection budget")
    void periodic() {
        check();
    }

    /** @return the last verdict that could ask PostgreSQL, or null before the first one */
    public Verdict last() {
        return last;
    }

    /**
     * Checks the budget now; logs a WARNING when it does not fit (at startup, and whenever the verdict
     * changes to not fitting).
     *
     * @return the verdict; {@code maxConnections} -1 and {@code fits} false when PostgreSQL could not be asked
     */
    public Verdict check() {
        int maxConnections;
        int reserved;
        try {
            int[] settings = jdbc.withConnection(c -> {
                try (Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("SELECT current_setting('max_connections')::int,"
                                + " current_setting('superuser_reserved_connections')::int")) {
                    rs.next();
                    return new int[] {rs.getInt(1), rs.getInt(2)};
                }
            });
            maxConnections = settings[0];
            reserved = settings[1];
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.WARNING, "connection budget not checked: " + e);
            return new Verdict(1, AppDataSource.MAX_POOL + OUTSIDE_POOL, AppDataSource.MAX_POOL,
                    poolNeeded(httpThreads, concurrency), RedisResources.redisPool(concurrency), -1, -1, false,
                    "PostgreSQL could not be asked for max_connections: " + e.getMessage(), clock.instant());
        }
        Live live = instances();
        int instances = live.count();
        int perInstance = AppDataSource.MAX_POOL + OUTSIDE_POOL;
        int needed = poolNeeded(httpThreads, concurrency);
        int total = instances * perInstance + reserved + HEADROOM;
        boolean poolOk = needed <= AppDataSource.MAX_POOL;
        boolean fits = poolOk && total <= maxConnections;
        String message = (poolOk ? "" : "the pool of " + AppDataSource.MAX_POOL + " is smaller than the "
                + needed + " connections the settings need (teamdesk.http.threads " + httpThreads
                + " + teamdesk.worker.concurrency " + concurrency + " + " + SWEEPS + " sweeps); ")
                + instances + " instance(s) × " + perInstance + " PostgreSQL connections + " + reserved
                + " reserved + " + HEADROOM + " headroom = " + total + (total <= maxConnections ? " <= " : " > ")
                + "max_connections " + maxConnections + " (fits " + instancesThatFit(maxConnections, reserved, perInstance)
                + " instance(s)); alive now: " + live.names();
        Verdict v = new Verdict(instances, perInstance, AppDataSource.MAX_POOL, needed, RedisResources.redisPool(concurrency),
                maxConnections, reserved, fits, message, clock.instant());
        Verdict before = last;
        last = v;
        if (!fits && (before == null || before.fits() || before.instances() != instances)) {
            LOG.warning(() -> "connection budget exceeded: " + message
                    + ". Raise max_connections, or lower teamdesk.worker.concurrency / the HTTP threads (docs/scaling.md).");
        } else if (fits && before == null) {
            LOG.info(() -> "connection budget: " + message);
        }
        return v;
    }

    /**
     * How old the last timer report of an instance may be for it to count as alive: three dispatch ticks
     * (the timers report after every tick, every 5 s). Issue 28: a 2-minute window counted instances killed
     * in the last two minutes as alive, and a soak with restarts warned of six instances where two ran.
     */
    static final Duration LIVE_REPORT_AGE = Duration.ofSeconds(15);

    /**
     * Live instances: queue workers whose heartbeat key is alive (it expires with its TTL, R22) and instances
     * whose timers reported within {@link #LIVE_REPORT_AGE}; at least this one. The larger of the two counts.
     */
    private Live instances() {
        Set<String> workers = new TreeSet<>();
        Set<String> reporting = new TreeSet<>();
        try {
            for (WorkerInfo w : redis.taskQueue().workers()) {
                if (w.live()) {
                    workers.add(w.host());
                }
            }
            Instant fresh = clock.instant().minus(LIVE_REPORT_AGE); // the reports carry PostgreSQL's time (R37)
            for (Map.Entry<String, String> e : redis.redis().hgetAll(redis.prefix() + ":timers").entrySet()) {
                try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(e.getValue()))) {
                    JsonObject o = r.readObject();
                    if (!Instant.parse(o.getString("reportedAt")).isBefore(fresh)) {
                        reporting.add(e.getKey());
                    }
                } catch (RuntimeException ex) {
                    LOG.fine(() -> "unreadable timer report " + e.getKey());
                }
            }
        } catch (RuntimeException e) {
            LOG.fine(() -> "instances not counted: " + e);
        }
        reporting.add(InstanceId.get());
        return workers.size() > reporting.size() ? new Live(workers.size(), "workers " + String.join(", ", workers))
                : new Live(reporting.size(), "instances " + String.join(", ", reporting));
    }

    /** How many instances are alive, and which (for the warning). */
    private record Live(int count, String names) {
    }
}
