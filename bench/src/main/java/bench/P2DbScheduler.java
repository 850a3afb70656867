package bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * P2 (and a P4 reference), the peer: db-scheduler on the same PostgreSQL (its own database, table from
 * bench/sql/db-scheduler-postgresql.sql), no-op one-time tasks, lock-and-fetch polling
 * ({@code pollUsingLockAndFetch(0.5, 3.0)}: one {@code UPDATE ... FOR UPDATE SKIP LOCKED ... RETURNING} picks
 * a batch), {@code threads} execution threads, immediate execution enabled (the scheduler is woken when a
 * task is scheduled due now in the same JVM, as our dispatch on commit; polling interval 1 s otherwise).
 * Tasks are scheduled through the Scheduler itself (an INSERT each, autocommit), by {@code clients} threads.
 *
 * <ul>
 * <li>{@code throughput}: time from the first schedule call until every task ran and its row is gone
 * (db-scheduler deletes a one-time task's row when it completes);</li>
 * <li>{@code latency}: one task every 1/rate s; latency = execution start (in the handler) - the instant
 * just before the schedule call, after {@code warm-up tasks} uncounted ones scheduled by 8 threads.</li>
 * <li>{@code reminder} (P2r, issue 33): as {@code throughput}, but each task is a reminder whose handler does, in
 * ONE JDBC transaction on a connection of its own from the pool, what our reminder writes: lock the team row
 * ({@code SELECT 1 FROM team WHERE id = ? FOR NO KEY UPDATE}, as our {@code JdbcTeamWrites.lockTeam}), INSERT a
 * notification, {@code UPDATE ticket SET version = version + 1}, INSERT a system event, commit; db-scheduler
 * then completes the task itself (deletes its row). The task data is "team ticket" of one of the OPEN tickets
 * of bench/sql/p2r-peer.sql (which this database needs besides db-scheduler's table), cycling over them as our
 * side does. Fails unless the writes happened: one notification and one event per task, and the tickets'
 * versions went up by the number of tasks run (warm-up included).</li>
 * </ul>
 * Usage: {@code P2DbScheduler throughput|latency|reminder <jdbc url> <user> <tasks> <threads> <clients or rate> [warm-up tasks]}.
 */
public final class P2DbScheduler {

    static final long TIMEOUT_MS = 300_000;

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int tasks = Integer.parseInt(args[3]);
        int threads = Integer.parseInt(args[4]);
        HikariConfig cfg = new HikariConfig();
        cfg.setJdbcUrl(args[1]);
        cfg.setUsername(args[2]);
        cfg.setMaximumPoolSize(threads + 8 + 4);
        try (HikariDataSource ds = new HikariDataSource(cfg)) {
            AtomicInteger executed = new AtomicInteger();
            ConcurrentHashMap<String, Long> started = new ConcurrentHashMap<>();
            OneTimeTask<Void> noop = Tasks.oneTime("noop").execute((instance, ctx) -> {
                started.put(instance.getId(), System.nanoTime());
                executed.incrementAndGet();
            });
            if (mode.equals("reminder")) {
                reminder(ds, executed, tasks, threads, Integer.parseInt(args[5]));
                return;
            }
            Scheduler scheduler = Scheduler.create(ds, noop).threads(threads)
                    .pollUsingLockAndFetch(0.5, 3.0).pollingInterval(Duration.ofSeconds(1))
                    .enableImmediateExecution().build();
            scheduler.start();
            try {
                // warm-up: 50 tasks, not counted
                for (int i = 0; i < 50; i++) {
                    scheduler.schedule(noop.instance("warm-" + i), Instant.now());
                }
                awaitEmpty(ds, executed, 50);
                executed.set(0);
                if (mode.equals("throughput")) {
                    // Warm, as our server is when it is measured (P2 warms it the same way): rounds of the same
                    // size, uncounted, at least WARMUP_MIN, then until three in a row are within 10 % (at most
                    // WARMUP_MAX). Their rates are reported beside the counted round.
                    List<Double> warmup = new ArrayList<>();
                    for (int w = 0; w < WARMUP_MAX; w++) {
                        double allS = round(ds, scheduler, noop, executed, "w" + w + "-", tasks, Integer.parseInt(args[5]))[1];
                        warmup.add(Math.round(tasks / allS * 10) / 10.0);
                        if (warmup.size() >= WARMUP_MIN && steady(warmup)) {
                            break;
                        }
                    }
                    throughput(ds, scheduler, noop, executed, tasks, threads, Integer.parseInt(args[5]), warmup);
                } else {
                    // As bench/run warms our server before P4 (P4Latency throughput, 8 clients): as many uncounted tasks first.
                    int warm = args.length > 6 ? Integer.parseInt(args[6]) : 0;
                    if (warm > 0) {
                        round(ds, scheduler, noop, executed, "w-", warm, 8);
                    }
                    latency(ds, scheduler, noop, executed, started, tasks, Double.parseDouble(args[5]));
                }
            } finally {
                scheduler.stop();
            }
        }
    }

    /** at least this many uncounted throughput rounds warm the scheduler up (bench/run's BENCH_P2_WARMUP_MIN) */
    static final int WARMUP_MIN = envInt("BENCH_P2_WARMUP_MIN", 3);
    /** at most this many uncounted throughput rounds warm the scheduler up (bench/run's BENCH_P2_WARMUP_MAX) */
    static final int WARMUP_MAX = envInt("BENCH_P2_WARMUP_MAX", 10);

    private static int envInt(String name, int fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : Integer.parseInt(v.trim());
    }

    /** True when the last three rates are within 10 % of each other (the slowest at least 1/1.1 of the fastest). */
    static boolean steady(List<Double> rates) {
        if (rates.size() < 3) {
            return false;
        }
        List<Double> last3 = rates.subList(rates.size() - 3, rates.size());
        return Collections.min(last3) * 1.1 >= Collections.max(last3);
    }

    /**
     * One round: {@code tasks} scheduled by {@code clients} threads, then awaited until all ran and their rows are
     * gone. @return {seconds until the last schedule call returned, seconds until all were gone}
     */
    static double[] round(HikariDataSource ds, Scheduler scheduler, OneTimeTask<Void> noop, AtomicInteger executed,
                          String prefix, int tasks, int clients) throws Exception {
        return round(ds, scheduler, (id, i) -> noop.instance(id), executed, prefix, tasks, clients);
    }

    /** {@link #round} of the instances {@code instances} makes. */
    static double[] round(HikariDataSource ds, Scheduler scheduler, Instances instances, AtomicInteger executed,
                          String prefix, int tasks, int clients) throws Exception {
        AtomicInteger next = new AtomicInteger();
        List<Thread> producers = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            Thread t = new Thread(() -> {
                int i;
                while ((i = next.getAndIncrement()) < tasks) {
                    scheduler.schedule(instances.of(prefix + i, i), Instant.now());
                }
            });
            t.start();
            producers.add(t);
        }
        for (Thread t : producers) {
            t.join(TIMEOUT_MS);
        }
        double createdS = (System.nanoTime() - t0) / 1e9;
        awaitEmpty(ds, executed, tasks);
        double allS = (System.nanoTime() - t0) / 1e9;
        executed.set(0);
        // as bench/run vacuums our ledger before each round (autovacuum is off on these machines)
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("VACUUM (ANALYZE) scheduled_tasks");
        }
        return new double[] {createdS, allS};
    }

    static void throughput(HikariDataSource ds, Scheduler scheduler, OneTimeTask<Void> noop, AtomicInteger executed,
                           int tasks, int threads, int clients, List<Double> warmup) throws Exception {
        double[] s = round(ds, scheduler, noop, executed, "t-", tasks, clients);
        double createdS = s[0];
        double allS = s[1];
        System.err.printf(Locale.ROOT, "P2 db-scheduler: warm-up rounds %s tasks/s; %d tasks scheduled in %.2f s, all done after %.2f s: %.0f tasks/s%n",
                warmup, tasks, createdS, allS, tasks / allS);
        System.out.println(String.format(Locale.ROOT, "{\"tasks\":%d,\"clients\":%d,\"threads\":%d,\"createSeconds\":%.3f,"
                + "\"createPerSecond\":%.1f,\"allCompletedSeconds\":%.3f,\"tasksPerSecond\":%.1f,\"warmupTasksPerSecond\":%s}",
                tasks, clients, threads, createdS, tasks / createdS, allS, tasks / allS, warmup));
    }

    /** P2r: the notification's text, as our side's reminders (P4Latency.REMINDER_MESSAGE) */
    static final String REMINDER_MESSAGE = P4Latency.REMINDER_MESSAGE;
    /** P2r: staff-1, the assignee of every reminder ticket (bench/sql/p2r-peer.sql), the one recipient */
    static final java.util.UUID RECIPIENT = java.util.UUID.fromString("b2000000-0000-4000-8000-000000000001");
    /** P2r: bench-owner, the actor of the system events */
    static final java.util.UUID ACTOR = java.util.UUID.fromString("b0000000-0000-4000-8000-000000000001");

    /** P2r: the reminder handler's one transaction (see the class comment); @throws SQLException rolled back */
    static void remind(HikariDataSource ds, String taskId, String data) throws java.sql.SQLException {
        String[] teamTicket = data.split(" ");
        java.util.UUID team = java.util.UUID.fromString(teamTicket[0]);
        java.util.UUID ticket = java.util.UUID.fromString(teamTicket[1]);
        java.sql.Timestamp now = java.sql.Timestamp.from(Instant.now());
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT 1 FROM team WHERE id = ? FOR NO KEY UPDATE")) {
                    ps.setObject(1, team);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw new IllegalStateException("no team " + team);
                        }
                    }
                }
                try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO notification (id, team_id, recipient_id,"
                        + " task_id, ticket_id, message, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                        + " ON CONFLICT (task_id, recipient_id) DO NOTHING")) {
                    ps.setObject(1, java.util.UUID.randomUUID());
                    ps.setObject(2, team);
                    ps.setObject(3, RECIPIENT);
                    ps.setString(4, taskId);
                    ps.setObject(5, ticket);
                    ps.setString(6, REMINDER_MESSAGE);
                    ps.setTimestamp(7, now);
                    ps.executeUpdate();
                }
                try (java.sql.PreparedStatement ps = c.prepareStatement(
                        "UPDATE ticket SET version = version + 1, updated_at = ? WHERE id = ?")) {
                    ps.setTimestamp(1, now);
                    ps.setObject(2, ticket);
                    if (ps.executeUpdate() != 1) {
                        throw new IllegalStateException("ticket " + ticket + " vanished under the team lock");
                    }
                }
                try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO system_event (team_id, kind, ticket_id,"
                        + " actor_id, task_id, payload, created_at) VALUES (?, 'ticket.reminder_sent', ?, ?, ?, ?::jsonb, ?)")) {
                    ps.setObject(1, team);
                    ps.setObject(2, ticket);
                    ps.setObject(3, ACTOR);
                    ps.setString(4, taskId);
                    ps.setString(5, "{\"taskId\":\"" + taskId + "\",\"recipients\":1,\"message\":\"" + REMINDER_MESSAGE + "\"}");
                    ps.setTimestamp(6, now);
                    ps.executeUpdate();
                }
                c.commit();
            } catch (RuntimeException | java.sql.SQLException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * P2r peer: a scheduler of reminder tasks ({@link #remind}); 50 warm-up tasks, then uncounted rounds as
     * {@code throughput}, then the counted round; then checks the writes (counts) and prints the same JSON line.
     */
    static void reminder(HikariDataSource ds, AtomicInteger executed, int tasks, int threads, int clients) throws Exception {
        List<String> targets = new ArrayList<>(); // "team ticket"
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT team_id, id FROM ticket WHERE status = 'OPEN' ORDER BY id")) {
            while (rs.next()) {
                targets.add(rs.getString(1) + " " + rs.getString(2));
            }
        }
        if (targets.isEmpty()) {
            throw new IllegalStateException("no OPEN tickets: apply bench/sql/p2r-peer.sql to this database");
        }
        long versionsBefore = peerVersions(ds);
        OneTimeTask<String> task = Tasks.oneTime("reminder", String.class).execute((instance, ctx) -> {
            try {
                remind(ds, instance.getId(), instance.getData());
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
            executed.incrementAndGet();
        });
        Scheduler scheduler = Scheduler.create(ds, task).threads(threads)
                .pollUsingLockAndFetch(0.5, 3.0).pollingInterval(Duration.ofSeconds(1))
                .enableImmediateExecution().build();
        scheduler.start();
        int ran = 0;
        try {
            Instances warm = (id, i) -> task.instance(id, targets.get(i % targets.size()));
            for (int i = 0; i < 50; i++) {
                scheduler.schedule(warm.of("warm-" + i, i), Instant.now());
            }
            awaitEmpty(ds, executed, 50);
            executed.set(0);
            ran += 50;
            List<Double> warmup = new ArrayList<>();
            for (int w = 0; w < WARMUP_MAX; w++) {
                double allS = round(ds, scheduler, warm, executed, "w" + w + "-", tasks, clients)[1];
                ran += tasks;
                warmup.add(Math.round(tasks / allS * 10) / 10.0);
                if (warmup.size() >= WARMUP_MIN && steady(warmup)) {
                    break;
                }
            }
            double[] s = round(ds, scheduler, warm, executed, "t-", tasks, clients);
            ran += tasks;
            long notifications;
            long events;
            long all;
            try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT (SELECT count(*) FROM notification WHERE task_id LIKE 't-%'),"
                            + " (SELECT count(*) FROM system_event WHERE task_id LIKE 't-%' AND kind = 'ticket.reminder_sent'),"
                            + " (SELECT count(*) FROM notification)")) {
                rs.next();
                notifications = rs.getLong(1);
                events = rs.getLong(2);
                all = rs.getLong(3);
            }
            long bumps = peerVersions(ds) - versionsBefore;
            if (notifications != tasks || events != tasks || all != ran || bumps != ran) {
                throw new IllegalStateException("P2r db-scheduler: " + tasks + " counted reminders ran (" + ran
                        + " in all) but " + notifications + " notifications and " + events + " events name them, "
                        + all + " notifications and " + bumps + " ticket version bumps in all");
            }
            System.err.printf(Locale.ROOT, "P2r db-scheduler (reminders): warm-up rounds %s tasks/s; %d tasks over %d"
                    + " tickets scheduled in %.2f s, all done after %.2f s: %.0f tasks/s; %d notifications, %d events,"
                    + " %d version bumps in all (%d tasks)%n", warmup, tasks, targets.size(), s[0], s[1], tasks / s[1],
                    notifications, events, bumps, ran);
            System.out.println(String.format(Locale.ROOT, "{\"tasks\":%d,\"clients\":%d,\"threads\":%d,\"tickets\":%d,"
                    + "\"createSeconds\":%.3f,\"createPerSecond\":%.1f,\"allCompletedSeconds\":%.3f,\"tasksPerSecond\":%.1f,"
                    + "\"warmupTasksPerSecond\":%s,\"notifications\":%d,\"events\":%d,\"versionBumpsAllRounds\":%d}",
                    tasks, clients, threads, targets.size(), s[0], tasks / s[0], s[1], tasks / s[1], warmup, notifications,
                    events, bumps));
        } finally {
            scheduler.stop();
        }
    }

    /** @return the sum of every ticket's version in the peer's database */
    private static long peerVersions(HikariDataSource ds) throws java.sql.SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT coalesce(sum(version), 0) FROM ticket")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The {@code i}-th task instance of a round, with id {@code id}. */
    interface Instances {
        com.github.kagkarlsson.scheduler.task.TaskInstance<?> of(String id, int i);
    }

    static void latency(HikariDataSource ds, Scheduler scheduler, OneTimeTask<Void> noop, AtomicInteger executed,
                        ConcurrentHashMap<String, Long> started, int tasks, double rate) throws Exception {
        long periodNs = (long) (1e9 / rate);
        long[] scheduledAt = new long[tasks];
        long start = System.nanoTime() + 50_000_000;
        for (int i = 0; i < tasks; i++) {
            long wait = start + i * periodNs - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            scheduledAt[i] = System.nanoTime();
            scheduler.schedule(noop.instance("l-" + i), Instant.now());
        }
        awaitEmpty(ds, executed, tasks);
        double[] ms = new double[tasks];
        for (int i = 0; i < tasks; i++) {
            ms[i] = (started.get("l-" + i) - scheduledAt[i]) / 1e6;
        }
        Arrays.sort(ms);
        System.err.printf(Locale.ROOT, "P4 db-scheduler: %d tasks at %.0f/s: schedule->start p50 %.1f ms p99 %.1f ms%n",
                tasks, rate, P4Latency.pct(ms, 50), P4Latency.pct(ms, 99));
        System.out.println(String.format(Locale.ROOT, "{\"tasks\":%d,\"ratePerS\":%.1f,\"p50Ms\":%.2f,\"p90Ms\":%.2f,"
                + "\"p99Ms\":%.2f,\"maxMs\":%.2f}", tasks, rate, P4Latency.pct(ms, 50), P4Latency.pct(ms, 90),
                P4Latency.pct(ms, 99), ms[ms.length - 1]));
    }

    static void awaitEmpty(HikariDataSource ds, AtomicInteger executed, int tasks) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            while (true) {
                if (executed.get() >= tasks) {
                    try (ResultSet rs = st.executeQuery("SELECT count(*) FROM scheduled_tasks")) {
                        rs.next();
                        if (rs.getLong(1) == 0) {
                            return;
                        }
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("db-scheduler executed " + executed.get() + " of " + tasks
                            + " in " + TIMEOUT_MS + " ms");
                }
                Thread.sleep(20);
            }
        }
    }
}
