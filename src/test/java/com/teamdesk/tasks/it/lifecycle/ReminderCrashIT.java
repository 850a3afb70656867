package com.teamdesk.tasks.it.lifecycle;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.export.ClientQueue;
import com.teamdesk.tasks.it.export.RowLock;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.queue.AddResult;
import com.teamdesk.tasks.task.reminder.ReminderParams;
import com.teamdesk.tasks.task.reminder.ReminderTransaction;
import com.teamdesk.tasks.testing.RedisPrefixCleanup;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * R14 and T4 on a real server process (as {@link LifecycleIT} starts them): the server is killed
 * with SIGKILL while its own worker is inside the reminder transaction, after the notification,
 * version and event writes and before the lease-checked completion. After a restart and recovery
 * the reminder has happened exactly once.
 *
 * <p>"Inside the transaction" is made deterministic with row locks held by the test ({@link RowLock}),
 * observed by bounded polls of {@code pg_stat_activity}: the ticket's row lock stops the worker at
 * its ticket {@code FOR UPDATE} (after its claim, team lock and lease read); the test then takes
 * the task row ({@code FOR NO KEY UPDATE}, which the notification and event foreign keys do not
 * need) and lets the ticket go, so the worker writes the notifications, the version and the event
 * and stops at its completion UPDATE. The process is killed there, and the statement it left
 * waiting is terminated before the task row is released, so the dead process writes nothing more
 * (as if it had died before sending that statement).
 *
 * <p>At the kill, another session must see none of the transaction's writes, be refused the ticket
 * and team rows (NOWAIT), and the worker's completion must run in a transaction begun before the
 * test released the ticket. The kill leaves the row RUNNING under the dead lease and the queue job
 * active under a 2 s lock; the second server (timers on, 5 s stall threshold) takes it over through
 * the queue's stalled check or the ledger's stall recovery (R6, R19, R7), whichever comes first.
 */
class ReminderCrashIT {
    /** Deletes the Redis keys of this class's prefixes after the class, when its servers have stopped. */
    @RegisterExtension
    static final RedisPrefixCleanup REDIS = new RedisPrefixCleanup();

    private static final Logger LOG = Logger.getLogger(ReminderCrashIT.class.getName());
    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofSeconds(60);
    private static final Duration CONVERGE = Duration.ofSeconds(120);
    /** Start of the worker's ticket lock (JdbcTeamWrites.lockTicket, called by ReminderTransaction). */
    private static final String TICKET_LOCK = "SELECT status, assignee_id, requester_id FROM ticket";
    /** Start of the lease-checked completion (JdbcTaskLedger.completeReminder). */
    private static final String COMPLETION = "UPDATE background_task SET status = 'COMPLETED'";
    /** SQLSTATE lock_not_available (a NOWAIT lock refused). */
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    /** This class's schema, created before its tests and dropped after them. */
    @RegisterExtension
    static final PrivateSchema data = PrivateSchema.perClass();

    /**
     * SIGKILL inside the reminder transaction: at the kill nothing of it is visible from another
     * session and its locks are held; after a second server's recovery the task is COMPLETED with
     * exactly one notification per recipient, one {@code ticket.reminder_sent} event and the
     * ticket's version +1. Both observations are asserted together at the end, so that a failure
     * shows the state at the kill and the outcome.
     */
    @Test
    void sigkillInsideTheReminderTransactionYieldsOneReminderAfterRecovery() throws Exception {
        String prefix = REDIS.create("it-crash");
        TestTeam t = data.newTeam();
        UUID ticket = ticket(t);
        UUID task = reminderRow(t, ticket);
        long version0 = data.count("SELECT version FROM ticket WHERE id = ?", ticket);
        String atKill;
        RowLock ticketLock = null;
        RowLock taskLock = null;
        try (ClientQueue q = new ClientQueue(prefix)) {
            try (ServerProcess first = ServerProcess.start("reminder-crash", env(prefix, Map.of(
                    "TEAMDESK_TIMERS_ENABLED", "false")))) {
                first.awaitReady(READY);
                ticketLock = RowLock.onRow(data::connection, "ticket", ticket, "FOR UPDATE");
                assertEquals(AddResult.ADDED, q.addTaskJob(task, 0));
                ticketLock.awaitBlocked(TICKET_LOCK, SYNC);
                assertEquals("RUNNING", data.value("SELECT status FROM background_task WHERE id = ?", task),
                        "claimed (R7) before the team lock");

                taskLock = RowLock.onRow(data::connection, "background_task", task, "FOR NO KEY UPDATE");
                Timestamp released = (Timestamp) data.value("SELECT clock_timestamp()");
                ticketLock.close();
                int worker = taskLock.awaitBlocked(COMPLETION, SYNC);
                atKill = inFlight(t.id(), ticket, task, worker, released);
                LOG.info(() -> "at the kill: " + atKill);

                first.process().destroyForcibly();
                assertTrue(first.awaitExit(SYNC), "SIGKILL");
            }
            assertEquals(1, taskLock.terminateWaiters(), "the dead server's completion was still waiting");
            taskLock.close();

            try (ServerProcess second = ServerProcess.start("reminder-recover", env(prefix, Map.of(
                    "TEAMDESK_TIMERS_ENABLED", "true",
                    "TEAMDESK_RECOVERY_STALL_THRESHOLD_MS", "5000")))) {
                second.awaitReady(READY);
                awaitCompleted(task);
            }
        } finally {
            if (ticketLock != null) {
                ticketLock.close();
            }
            if (taskLock != null) {
                taskLock.close();
            }
        }
        String outcome = outcome(t, ticket, task, version0);
        assertAll(() -> assertEquals("visible: notifications 0, events 0, version +0; held: ticket row true, team row true;"
                + " completion in a transaction begun before the ticket lock: true", atKill,
                "at the kill, inside the reminder transaction (R14)"),
                () -> assertEquals("COMPLETED progress 100 lease null; notifications owner 1, staff 1;"
                        + " events 1; version +1", outcome, "after restart and recovery"));
    }

    /**
     * Issue 28 (R36): a server frozen (SIGSTOP) inside a reminder's transaction, holding the team lock, holds
     * it no longer than {@code teamdesk.reminder.idle-timeout-ms} (here 3 s): PostgreSQL ends the idle
     * session, so another transaction of the team (what the team's other reminders and ticket changes take)
     * gets the team lock within that bound instead of waiting for the frozen JVM. Resumed (SIGCONT), the
     * server finds its connection gone, retries, and the reminder happens exactly once.
     */
    @Test
    void aServerFrozenInsideTheReminderTransactionHoldsTheTeamLockOnlyForTheIdleTimeout() throws Exception {
        String prefix = REDIS.create("it-frozen");
        TestTeam t = data.newTeam();
        UUID ticket = ticket(t);
        UUID task = reminderRow(t, ticket);
        long version0 = data.count("SELECT version FROM ticket WHERE id = ?", ticket);
        long idleMs = 3_000;
        Duration waited;
        try (ClientQueue q = new ClientQueue(prefix);
                ServerProcess frozen = ServerProcess.start("reminder-frozen", env(prefix, Map.of(
                        "TEAMDESK_TIMERS_ENABLED", "false",
                        "TEAMDESK_REMINDER_IDLE_TIMEOUT_MS", Long.toString(idleMs))))) {
            frozen.awaitReady(READY);
            long pid = frozen.process().pid();
            try (RowLock ticketLock = RowLock.onRow(data::connection, "ticket", ticket, "FOR UPDATE")) {
                assertEquals(AddResult.ADDED, q.addTaskJob(task, 0));
                ticketLock.awaitBlocked(TICKET_LOCK, SYNC); // the worker holds the team lock and waits for the ticket
                signal("STOP", pid);
            } // the worker's backend gets the ticket row and returns it to a JVM that no longer reads: idle in transaction
            try {
                Instant asked = Instant.now();
                try (Connection c = data.connection()) {
                    c.setAutoCommit(false);
                    try (PreparedStatement ps = c.prepareStatement("SELECT set_config('lock_timeout', '30s', true),"
                            + " (SELECT 1 FROM team WHERE id = ? FOR NO KEY UPDATE)")) {
                        ps.setObject(1, t.id());
                        ps.executeQuery().close();
                    }
                    waited = Duration.between(asked, Instant.now());
                    c.rollback();
                }
            } finally {
                signal("CONT", pid);
            }
            awaitCompleted(task);
        }
        String outcome = outcome(t, ticket, task, version0);
        Duration bound = Duration.ofMillis(idleMs).plusSeconds(5);
        assertAll(() -> assertTrue(waited.compareTo(bound) < 0, "the team lock was free after " + waited.toMillis()
                        + " ms; the bound is the idle timeout " + idleMs + " ms (+5 s)"),
                () -> assertEquals("COMPLETED progress 100 lease null; notifications owner 1, staff 1;"
                        + " events 1; version +1", outcome, "after the frozen server resumed"));
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal + " " + pid);
    }

    /**
     * @param ticketReleased when the test let the worker take the ticket row
     * @return what another session sees while the worker waits at its completion UPDATE
     */
    private String inFlight(UUID team, UUID ticket, UUID task, int workerPid, Timestamp ticketReleased)
            throws SQLException {
        long notifications = data.count("SELECT count(*) FROM notification WHERE task_id = ?", task);
        long events = data.count("SELECT count(*) FROM system_event WHERE task_id = ?", task);
        long version = data.count("SELECT version FROM ticket WHERE id = ?", ticket) - 1;
        Object begunEarlier = data.value("SELECT xact_start < ? FROM pg_stat_activity WHERE pid = ?", ticketReleased,
                workerPid);
        return "visible: notifications " + notifications + ", events " + events + ", version +" + version
                + "; held: ticket row " + lockedElsewhere("ticket", ticket, "FOR UPDATE NOWAIT")
                + ", team row " + lockedElsewhere("team", team, "FOR NO KEY UPDATE NOWAIT")
                + "; completion in a transaction begun before the ticket lock: " + begunEarlier;
    }

    /** @return true when another transaction holds a lock on the row that {@code lockClause} refuses */
    private static boolean lockedElsewhere(String table, UUID id, String lockClause) throws SQLException {
        try (Connection c = data.connection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + table + " WHERE id = ? " + lockClause)) {
                ps.setObject(1, id);
                ps.executeQuery().close();
                return false;
            } catch (SQLException e) {
                if (LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    return true;
                }
                throw e;
            } finally {
                c.rollback();
            }
        }
    }

    /** @return the task's final state, its notifications per recipient, events and version change */
    private static String outcome(TestTeam t, UUID ticket, UUID task, long version0) {
        String row = (String) data.value("SELECT status || ' progress ' || progress || ' lease '"
                + " || coalesce(execution_id::text, 'null') FROM background_task WHERE id = ?", task);
        long owner = data.count("SELECT count(*) FROM notification WHERE task_id = ? AND recipient_id = ?", task, t.owner());
        long staff = data.count("SELECT count(*) FROM notification WHERE task_id = ? AND recipient_id = ?", task, t.staff());
        long others = data.count("SELECT count(*) FROM notification WHERE task_id = ? AND recipient_id NOT IN (?, ?)", task,
                t.owner(), t.staff());
        long events = data.count("SELECT count(*) FROM system_event WHERE task_id = ? AND kind = ?", task,
                ReminderTransaction.EVENT_KIND);
        long version = data.count("SELECT version FROM ticket WHERE id = ?", ticket) - version0;
        return row + "; notifications owner " + owner + ", staff " + staff + (others == 0 ? "" : ", others " + others)
                + "; events " + events + "; version +" + version;
    }

    /** Bounded poll until the task is COMPLETED (detects the recovery; orders nothing). */
    private static void awaitCompleted(UUID task) throws InterruptedException {
        Instant deadline = Instant.now().plus(CONVERGE);
        while (Instant.now().isBefore(deadline)) {
            if ("COMPLETED".equals(data.value("SELECT status FROM background_task WHERE id = ?", task))) {
                return;
            }
            Thread.sleep(200);
        }
        LOG.warning(() -> "task " + task + " not COMPLETED within " + CONVERGE);
    }

    /**
     * Settings of a test server: the private schema, its own Redis prefix, one worker thread, a
     * 2 s queue lock and a 1 s stalled check, so the dead worker's job is taken over within seconds.
     */
    private static Map<String, String> env(String prefix, Map<String, String> extra) {
        Map<String, String> env = ServerProcess.env(data, prefix, Map.of());
        env.put("TEAMDESK_WORKER_CONCURRENCY", "1");
        env.put("TEAMDESK_WORKER_LOCK_DURATION_MS", "2000");
        env.put("TEAMDESK_WORKER_LOCK_RENEW_MS", "500");
        env.put("TEAMDESK_WORKER_STALLED_INTERVAL_MS", "1000");
        env.put("TEAMDESK_WORKER_SHUTDOWN_GRACE_MS", "5000");
        env.putAll(extra);
        return env;
    }

    /** An OPEN ticket of the customer, assigned to the staff member, version 1. */
    private static UUID ticket(TestTeam t) {
        UUID id = UUID.randomUUID();
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) VALUES (?, ?, 'Printer on fire', 'Smoke', 'OPEN', 'NORMAL', ?, ?, now(), now(), 1)",
                id, t.id(), t.staff(), t.customer());
        return id;
    }

    /**
     * A TEAM reminder of the staff member to the team's staff (owner and staff), WAITING and already
     * marked dispatched: the test hands its job to the worker itself.
     */
    private static UUID reminderRow(TestTeam t, UUID ticket) {
        UUID id = UUID.randomUUID();
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        String filters = new ReminderParams(ticket, "Please look at this", ReminderParams.Recipients.TEAM_STAFF).toJson();
        data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, dispatched_at, run_at, created_at, updated_at) VALUES (?, 'REMINDER', ?, ?, 'TEAM',"
                + " ?::jsonb, 'WAITING', 0, 0, 0, ?, ?, ?, ?)", id, t.id(), t.staff(), filters, now, now, now, now);
        return id;
    }
}
