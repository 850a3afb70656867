package com.teamdesk.tasks.it.lifecycle;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.export.RowLock;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.task.escalation.EscalationTransaction;
import com.teamdesk.tasks.testing.RedisPrefixCleanup;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 53 (R59) on two real server processes, both with their timers and workers on, sharing one database and one
 * Redis: a ticket's breach escalation is due; whichever server's worker takes it is stopped inside the escalation's
 * transaction — after the clock's BREACHED, the owners' notification and the event were written, before the
 * lease-checked completion — and killed with SIGKILL there. The other server takes the run over (the queue's stalled
 * check or R19) and breaches the clock once: one notification, one event, the clock BREACHED one version on.
 *
 * <p>"Inside the transaction" is made deterministic with row locks held by the test ({@link RowLock}), as
 * {@link ReminderCrashIT} does: the clock's row lock stops the worker at its clock {@code FOR UPDATE} (after its claim,
 * the team lock and the lease read); the test then takes the task row ({@code FOR NO KEY UPDATE}) and lets the clock
 * go, so the worker writes and stops at its completion UPDATE. The statement it left waiting is terminated after the
 * kill, so the dead process writes nothing more.
 */
class EscalationCrashIT {
    /** Deletes the Redis keys of this class's prefixes after the class, when its servers have stopped. */
    @RegisterExtension
    static final RedisPrefixCleanup REDIS = new RedisPrefixCleanup();

    /** This class's schema, created before its tests and dropped after them. */
    @RegisterExtension
    static final PrivateSchema data = PrivateSchema.perClass();

    private static final Logger LOG = Logger.getLogger(EscalationCrashIT.class.getName());
    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofSeconds(60);
    private static final Duration CONVERGE = Duration.ofSeconds(120);
    /** Start of the escalation's clock lock (SlaClocks.lockForEscalation). */
    private static final String CLOCK_LOCK = "SELECT k.title, k.assignee_id";
    /** Start of the lease-checked completion (JdbcTaskLedger.complete). */
    private static final String COMPLETION = "UPDATE background_task SET status = 'COMPLETED'";

    @Test
    void twoServersAndASigkillInsideTheBreachGiveOneBreach() throws Exception {
        String prefix = REDIS.create("it-sla");
        TestTeam t = data.newTeam();
        String token = Tokens.of(t.staff());
        List<ServerProcess> servers = ServerProcess.startReady(READY, env(prefix), "sla-a", "sla-b");
        String killed;
        UUID ticket;
        UUID breach;
        java.sql.Timestamp due;
        try (ServerProcess a = servers.get(0); ServerProcess b = servers.get(1)) {
            Api api = Api.at(a.root().toURL());
            Reply policies = api.send("PUT", api.uri("teams/" + t.id() + "/sla-policies"), Tokens.of(t.owner()),
                    "{\"policies\":[{\"priority\":\"NORMAL\",\"firstResponseMinutes\":30,\"resolutionMinutes\":600}]}",
                    null);
            assertEquals(200, policies.status(), policies.toString());
            Reply created = api.post("teams/" + t.id() + "/tickets", token, "{\"title\":\"VPN down\",\"assigneeId\":\""
                    + t.staff() + "\"}");
            assertEquals(201, created.status(), created.toString());
            ticket = UUID.fromString(created.json().getString("id"));
            breach = (UUID) data.value("SELECT id FROM background_task WHERE once_key = ?",
                    "sla:" + ticket + ":FIRST_RESPONSE:BREACH:1");

            // the breach instant, a second ago: the clock's due instant and its breach's run_at (what the dispatch sweeps
            // of both servers see as due), moved together as thirty minutes passing would move them
            data.exec("UPDATE ticket_sla_clock SET due_at = date_trunc('milliseconds', now()) - interval '1 second'"
                    + " WHERE ticket_id = ? AND metric = 'FIRST_RESPONSE'", ticket);
            due = (java.sql.Timestamp) data.value("SELECT due_at FROM ticket_sla_clock WHERE ticket_id = ? AND metric ="
                    + " 'FIRST_RESPONSE'", ticket);
            try (RowLock clockLock = RowLock.onRows(data::connection, "ticket_sla_clock", "ticket_id = ?", ticket,
                    "FOR UPDATE")) {
                data.exec("UPDATE background_task SET run_at = ? WHERE id = ?", due, breach);
                int worker = clockLock.awaitBlocked(CLOCK_LOCK, SYNC);
                killed = (String) data.value("SELECT application_name FROM pg_stat_activity WHERE pid = ?", worker);
                try (RowLock taskLock = RowLock.onRow(data::connection, "background_task", breach, "FOR NO KEY UPDATE")) {
                    clockLock.release();
                    taskLock.awaitBlocked(COMPLETION, SYNC);
                    ServerProcess victim = killed.equals(ServerProcess.applicationName("sla-a")) ? a : b;
                    LOG.info(() -> "killing " + victim + " inside the breach's transaction");
                    victim.process().destroyForcibly();
                    assertTrue(victim.awaitExit(SYNC), "SIGKILL");
                    assertEquals(1, taskLock.terminateWaiters(), "the dead server's completion was still waiting");
                }
            }
            awaitCompleted(breach); // the survivor took the run over
        }
        String outcome = data.value("SELECT status FROM background_task WHERE id = ?", breach) + "; notifications "
                + data.count("SELECT count(*) FROM notification WHERE task_id = ? AND recipient_id = ?", breach, t.owner())
                + " to the owner, " + data.count("SELECT count(*) FROM notification WHERE task_id = ? AND recipient_id <> ?",
                        breach, t.owner()) + " to others; events "
                + data.count("SELECT count(*) FROM system_event WHERE task_id = ? AND kind = ?", breach,
                        EscalationTransaction.BREACH_EVENT)
                + "; clock " + data.value("SELECT state || ' v' || version || CASE WHEN ended_at = ? THEN ' at its due"
                        + " instant' ELSE ' at ' || ended_at END FROM ticket_sla_clock WHERE ticket_id = ? AND metric ="
                        + " 'FIRST_RESPONSE'", due, ticket);
        long otherNotes = data.count("SELECT count(*) FROM notification n JOIN background_task e ON e.id = n.task_id"
                + " WHERE e.kind = 'SLA_ESCALATION' AND e.id <> ?", breach);
        assertAll(() -> assertTrue(killed.startsWith(ServerProcess.APPLICATION_NAME + "-sla-"), killed),
                () -> assertEquals("COMPLETED; notifications 1 to the owner, 0 to others; events 1; clock BREACHED v2 at its due"
                        + " instant",
                        outcome, "after the kill and the takeover"),
                () -> assertEquals(0, otherNotes, "no other escalation ran"));
    }

    /** Bounded poll until the task is COMPLETED (detects the takeover; orders nothing). */
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
     * Settings of both servers: the private schema, the class's Redis prefix, timers on (both dispatch), one worker
     * slot, a 2 s queue lock and a 1 s stalled check, a 5 s stall threshold, so the dead worker's run is taken over
     * within seconds.
     */
    private static Map<String, String> env(String prefix) {
        Map<String, String> env = ServerProcess.env(data, prefix, Map.of());
        env.put("TEAMDESK_TIMERS_ENABLED", "true");
        env.put("TEAMDESK_WORKER_CONCURRENCY", "1");
        env.put("TEAMDESK_WORKER_LOCK_DURATION_MS", "2000");
        env.put("TEAMDESK_WORKER_LOCK_RENEW_MS", "500");
        env.put("TEAMDESK_WORKER_STALLED_INTERVAL_MS", "1000");
        env.put("TEAMDESK_WORKER_SHUTDOWN_GRACE_MS", "5000");
        env.put("TEAMDESK_RECOVERY_STALL_THRESHOLD_MS", "5000");
        return env;
    }
}
