package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.TestClock;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.task.escalation.EscalationTransaction;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.TicketChanges;
import com.teamdesk.tasks.team.TicketDraft;
import com.teamdesk.tasks.team.TicketService;
import com.teamdesk.tasks.team.calendar.TeamCalendars;
import com.teamdesk.tasks.team.sla.SlaClock;
import com.teamdesk.tasks.team.sla.SlaPolicies;
import com.teamdesk.tasks.team.sla.TicketSlas;
import com.teamdesk.tasks.it.support.Api;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URL;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 53 (R59) on the production path: tickets, calendars and policies changed through the production services (their
 * own transactions), the escalations started by the clocks' change in that transaction, handed to the queue by the
 * production dispatch query for the test's task ({@code dispatchNow}) and run by the deployed worker on its own
 * threads. Time moves with the application clock ({@link TestClock}); ordering inside a run comes from a gate at the
 * kind-blind pause point {@link EnginePausePoint#BEFORE_COMPLETION}. Timers are off: only the test and the worker move
 * rows.
 */
@ExtendWith(ArquillianExtension.class)
class SlaEscalationIT extends EngineCase {
    /** A Monday, 10:00 UTC. */
    private static final Instant T0 = Instant.parse("2031-03-03T10:00:00Z");

    @Deployment
    static WebArchive deployment() {
        return deployment(Map.of("teamdesk.task.backoff-ms", "30"), SlaEscalationIT.class, TestClock.class);
    }

    @Inject
    TicketService tickets;
    @Inject
    SlaPolicies policies;
    @Inject
    TeamCalendars calendars;
    @Inject
    TicketSlas slas;
    @Inject
    Queue queue;
    @Inject
    Clock clock;

    @ArquillianResource
    URL url;

    private EngineFixtures.TestTeam team;

    @BeforeEach
    void newTeam() {
        TestClock.fixAt(T0);
        team = fx.newTeam();
        // NORMAL: first response in 100 minutes, resolution in 1000, warning at 75 %
        policies.replace(team.owner(), team.id(), json("{\"policies\":[{\"priority\":\"NORMAL\","
                + "\"firstResponseMinutes\":100,\"resolutionMinutes\":1000,\"warnPercent\":75}]}"));
    }

    @AfterEach
    void resetClock() {
        resetGates();
        TestClock.reset();
        // the escalations this test did not run stay out of every later dispatch of the shared database
        fx.exec("UPDATE background_task SET status = 'CANCELLED', cancelled_at = now(), updated_at = now() WHERE"
                + " team_id = ? AND status = 'WAITING'", team.id());
    }

    /**
     * A ticket that goes PENDING one minute before its first-response warning never warns: the warning of that version
     * completes as superseded and writes nothing. Reopened ten minutes later, the clock warns once, at the instant
     * shifted by the pause, to the ticket's assignee.
     */
    @Test
    void aTicketPendingOneMinuteBeforeItsWarningNeverWarnsAndReopenedWarnsAtTheShiftedInstant() throws Exception {
        UUID ticket = newTicket();
        assertEquals(List.of("FIRST_RESPONSE BREACH 1 " + T0.plusSeconds(100 * 60),
                "FIRST_RESPONSE WARNING 1 " + T0.plusSeconds(75 * 60), "RESOLUTION BREACH 1 " + T0.plusSeconds(1000 * 60),
                "RESOLUTION WARNING 1 " + T0.plusSeconds(750 * 60)), escalations(ticket),
                "the ticket's creation started its four escalations, in its transaction");

        TestClock.advance(Duration.ofMinutes(74));
        status(ticket, "PENDING");
        TestClock.advance(Duration.ofMinutes(1)); // the first version's warning instant
        UUID staleWarning = escalation(ticket, "FIRST_RESPONSE", "WARNING", 1);
        run(staleWarning);
        assertSuperseded(staleWarning);

        TestClock.advance(Duration.ofMinutes(10));
        status(ticket, "OPEN");
        Instant reopened = T0.plusSeconds(85 * 60);
        SlaClock running = slas.read(team.staff(), team.id(), ticket).clocks().stream()
                .filter(c -> c.clock().metric() == SlaClock.Metric.FIRST_RESPONSE).findFirst().orElseThrow().clock();
        assertEquals(3, running.version(), "paused (2) and resumed (3)");
        UUID warning = escalation(ticket, "FIRST_RESPONSE", "WARNING", 3);
        assertEquals(reopened.plusSeconds(60), row(warning).runAt(), "74 of its 75 minutes were used before the pause");

        TestClock.advance(Duration.ofMinutes(1));
        run(warning);
        awaitStatus(warning, TaskStatus.COMPLETED);
        assertEquals("Warning sent to 1 person.", row(warning).resultSummary());
        assertEquals(List.of(team.staff2().toString()), recipients(warning), "the assignee is warned");
        String message = (String) fx.value("SELECT message FROM notification WHERE task_id = ?", warning);
        assertTrue(message.startsWith("SLA warning: first response of \"Printer on fire\" is due "), message);
        assertEquals(EscalationTransaction.WARNING_EVENT, fx.value("SELECT kind FROM system_event WHERE task_id = ?",
                warning));
        assertEquals(0L, fx.count("SELECT count(*) FROM notification n JOIN background_task t ON t.id = n.task_id"
                + " WHERE t.kind = 'SLA_ESCALATION' AND t.filters->>'ticketId' = ? AND t.id <> ?", ticket.toString(),
                warning), "no other escalation of the ticket notified anyone");
        // R59's counters, as Prometheus reads them
        String metrics = Api.at(url).getRoot("metrics").body();
        assertEquals(1.0, escalations(metrics, "warning", "sent"), metrics);
        assertEquals(1.0, escalations(metrics, "warning", "superseded"), metrics);
    }

    /** @return the value of this test's team's {@code teamdesk_sla_escalations_total} series, or -1 without one */
    private double escalations(String metrics, String threshold, String outcome) {
        return metrics.lines().filter(l -> l.startsWith("teamdesk_sla_escalations_total{")
                && l.contains("team=\"" + team.id() + "\"") && l.contains("threshold=\"" + threshold + "\"")
                && l.contains("outcome=\"" + outcome + "\"")).mapToDouble(l -> Double.parseDouble(
                        l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(-1);
    }

    /**
     * A holiday added while a resolution clock runs moves its breach to the next working day: the breach of the old
     * version is replaced (cancelled while it waits), the new one breaches the clock at its own instant (BREACHED, the
     * owners told once, one event), and the board lists the breach until the ticket is closed late.
     */
    @Test
    void aHolidayAddedWhileAClockRunsMovesItsBreach() throws Exception {
        // every day 00:00-23:59 in Shanghai
        StringBuilder shifts = new StringBuilder();
        for (String d : List.of("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")) {
            shifts.append(shifts.length() == 0 ? "" : ",").append("{\"day\":\"").append(d)
                    .append("\",\"start\":\"00:00\",\"end\":\"23:59\"}");
        }
        String calendar = "{\"zone\":\"Asia/Shanghai\",\"shifts\":[" + shifts + "]}";
        calendars.replace(team.owner(), team.id(), json(calendar), null);
        UUID ticket = newTicket();
        UUID oldBreach = escalation(ticket, "RESOLUTION", "BREACH", 1);
        Instant due = row(oldBreach).runAt();
        LocalDate dueDay = due.atZone(ZoneId.of("Asia/Shanghai")).toLocalDate();

        TestClock.advance(Duration.ofMinutes(5));
        calendars.replace(team.owner(), team.id(), json(calendar.replace("]}", "],\"holidays\":[{\"first\":\"" + dueDay
                + "\",\"last\":\"" + dueDay + "\",\"name\":\"Closed\"}]}")), null);
        UUID newBreach = escalation(ticket, "RESOLUTION", "BREACH", 2);
        assertNotEquals(oldBreach, newBreach);
        Instant moved = row(newBreach).runAt();
        assertEquals(dueDay.plusDays(1), moved.atZone(ZoneId.of("Asia/Shanghai")).toLocalDate());

        BackgroundTask replaced = row(oldBreach);
        assertEquals(TaskStatus.CANCELLED, replaced.status(), "the newer version's breach replaced the waiting one");
        assertTrue(replaced.lastError().startsWith("Replaced: "), replaced.lastError());
        TestClock.fixAt(due);
        sweeps.dispatchNow(oldBreach);
        assertEquals(replaced, row(oldBreach), "never run");

        TestClock.fixAt(moved);
        run(newBreach);
        awaitStatus(newBreach, TaskStatus.COMPLETED);
        assertEquals(List.of(team.owner().toString()), recipients(newBreach), "the team's owners are told of a breach");
        assertEquals(1L, fx.count("SELECT count(*) FROM system_event WHERE task_id = ? AND kind = ?", newBreach,
                EscalationTransaction.BREACH_EVENT));
        SlaClock breached = resolution(ticket);
        assertEquals(SlaClock.State.BREACHED, breached.state());
        assertEquals(3, breached.version());
        assertEquals(moved, breached.endedAt(), "broken at its due instant");
        assertTrue(slas.board(team.staff(), team.id(), 50).lines().stream()
                .anyMatch(l -> l.ticketId().equals(ticket) && l.clock().state() == SlaClock.State.BREACHED),
                "the board shows the breach");

        TestClock.advance(Duration.ofMinutes(3));
        status(ticket, "CLOSED");
        assertNull(resolution(ticket).due(), "closed late: settled");
        assertTrue(slas.board(team.staff(), team.id(), 50).lines().stream().noneMatch(l -> l.ticketId().equals(ticket)),
                "a breach kept late leaves the board");
    }

    /**
     * Found in review: a staff reply that comes after the first response's due instant, before its breach ran (a queue
     * backlog), finds the promise broken: BREACHED at its due instant, not MET; the breach of that version still tells
     * the owners, once.
     */
    @Test
    void aReplyAfterTheDueInstantDoesNotKeepTheBrokenPromise() throws Exception {
        UUID ticket = newTicket();
        UUID breach = escalation(ticket, "FIRST_RESPONSE", "BREACH", 1);
        TestClock.advance(Duration.ofMinutes(101)); // due at 100; its breach has not run yet
        tickets.reply(team.staff(), team.id(), ticket, "Sorry for the wait");
        SlaClock first = clock(ticket, SlaClock.Metric.FIRST_RESPONSE);
        assertEquals(SlaClock.State.BREACHED, first.state(), "not met late");
        assertEquals(T0.plusSeconds(100 * 60), first.endedAt(), "broken at its due instant");
        assertNull(first.due(), "answered: off the board");
        assertEquals(2, first.version());
        run(breach);
        assertEquals(TaskStatus.COMPLETED, row(breach).status());
        assertEquals("Breach sent to 1 person.", row(breach).resultSummary());
        assertEquals(List.of(team.owner().toString()), recipients(breach));
        assertEquals(first, clock(ticket, SlaClock.Metric.FIRST_RESPONSE), "the breach changed the clock no further");
    }

    /**
     * Found in review: a warning whose instant passed while its escalation waited in the queue is not lost when the
     * ticket goes PENDING and back: the reopened clock warns at once, once; after that, no flip warns again. A customer
     * flipping the ticket leaves at most the newest escalations waiting (older ones replaced), and a calendar written
     * again unchanged moves nothing.
     */
    @Test
    void aPassedWarningIsSentOnceAndFlipsLeaveOnlyTheNewestEscalationsWaiting() throws Exception {
        UUID ticket = newTicket();
        TestClock.advance(Duration.ofMinutes(80)); // the first response's warning (75) came due; not run
        status(ticket, "PENDING");
        TestClock.advance(Duration.ofMinutes(1));
        status(ticket, "OPEN");
        UUID warning = escalation(ticket, "FIRST_RESPONSE", "WARNING", 3);
        assertEquals(T0.plusSeconds(81 * 60), row(warning).runAt(), "due at once: it was never sent");
        run(warning);
        assertEquals(List.of(team.staff2().toString()), recipients(warning));
        for (int i = 0; i < 10; i++) {
            status(ticket, "PENDING");
            status(ticket, "OPEN");
        }
        assertEquals(List.of("FIRST_RESPONSE BREACH", "RESOLUTION BREACH", "RESOLUTION WARNING"),
                fx.rows("SELECT filters->>'metric', filters->>'threshold' FROM background_task WHERE kind ="
                        + " 'SLA_ESCALATION' AND status = 'WAITING' AND filters->>'ticketId' = ?", ticket.toString())
                        .stream().map(r -> r[0] + " " + r[1]).sorted().toList(),
                "the newest version's only; no second first-response warning");
        long tasksBefore = fx.count("SELECT count(*) FROM background_task WHERE team_id = ?", team.id());
        int versionBefore = clock(ticket, SlaClock.Metric.RESOLUTION).version();
        String calendar = "{\"zone\":\"UTC\",\"shifts\":[{\"day\":\"MONDAY\",\"start\":\"00:00\",\"end\":\"23:59\"}]}";
        calendars.replace(team.owner(), team.id(), json(calendar), null);
        int versionAfterEdit = clock(ticket, SlaClock.Metric.RESOLUTION).version();
        long tasksAfterEdit = fx.count("SELECT count(*) FROM background_task WHERE team_id = ?", team.id());
        calendars.replace(team.owner(), team.id(), json(calendar), null);
        assertEquals(versionBefore + 1, versionAfterEdit);
        assertEquals(versionAfterEdit, clock(ticket, SlaClock.Metric.RESOLUTION).version(), "the same calendar again");
        assertEquals(tasksAfterEdit, fx.count("SELECT count(*) FROM background_task WHERE team_id = ?", team.id()),
                "and no escalation started (" + tasksBefore + " before the edit)");
    }

    /**
     * Execution A of the production worker is paused inside the breach's transaction (notification, event and BREACHED
     * written, not committed) while a second execution claims the run. A's fenced completion matches nothing: its
     * transaction rolls back and the clock is still RUNNING at its version. Stall recovery and the production worker
     * then breach it exactly once.
     */
    @Test
    void aLeaseTakenOverInsideTheBreachRollsItBackAndTheRunBreachesOnce() throws Exception {
        UUID ticket = newTicket();
        task = track(escalation(ticket, "FIRST_RESPONSE", "BREACH", 1));
        var aPaused = gates.gate(EnginePausePoint.BEFORE_COMPLETION, task, 1);
        TestClock.advance(Duration.ofMinutes(100));
        sweeps.dispatchNow(task);

        Lease a = aPaused.awaitArrival();
        assertEquals(0, fx.notifications(task), "A's notification is not committed while A is paused");
        JdbcTaskLedger.Claim b = ledger.claim(task, 0, 1, clock.instant()).orElseThrow(); // as B's processor does
        aPaused.release();

        awaitQueueState(queue, JobState.COMPLETED); // A returned quietly after LeaseLost (R9)
        assertEquals(0, fx.notifications(task), "A lost its lease: its notification rolled back");
        assertEquals(0, fx.events(task), "and its system event");
        SlaClock first = clock(ticket, SlaClock.Metric.FIRST_RESPONSE);
        assertEquals(SlaClock.State.RUNNING, first.state(), "and the breach");
        assertEquals(1, first.version());
        BackgroundTask t = row();
        assertEquals(b.lease().executionId(), t.executionId(), "the row still carries B's lease");
        assertNotEquals(a.executionId(), t.executionId());

        fx.age(task, Duration.ofMinutes(10)); // B dies; R19 heals the run, the production worker runs it again
        assertTrue(sweeps.recoverStalled(1000).contains(TaskJobId.of(task, 0)));
        sweeps.dispatchNow(task);
        awaitStatus(TaskStatus.COMPLETED);
        assertEquals(List.of(team.owner().toString()), recipients(task), "exactly one breach notification");
        assertEquals(1, fx.events(task));
        assertEquals(SlaClock.State.BREACHED, clock(ticket, SlaClock.Metric.FIRST_RESPONSE).state());
    }

    // ---- helpers ----

    /** An OPEN NORMAL ticket of the customer, assigned to staff2. */
    private UUID newTicket() {
        return tickets.create(team.staff(), team.id(), new TicketDraft("Printer on fire", "Smoke", "NORMAL",
                team.staff2().toString())).getId();
    }

    private void status(UUID ticket, String status) {
        tickets.patch(team.staff(), team.id(), ticket, fx.ticketVersion(ticket), new TicketChanges(null, null, status,
                null, false, null));
    }

    /** Hands the escalation to the queue (the production dispatch query, for this row) and waits for its end. */
    private void run(UUID escalation) throws InterruptedException {
        track(escalation);
        sweeps.dispatchNow(escalation);
        await(() -> row(escalation).status().isFinal(), "escalation " + escalation + " never ended: " + row(escalation));
    }

    private void assertSuperseded(UUID escalation) {
        BackgroundTask t = row(escalation);
        assertEquals(TaskStatus.COMPLETED, t.status());
        assertTrue(t.resultSummary().startsWith("Superseded: the clock is at version "), t.resultSummary());
        assertEquals(0, fx.notifications(escalation), "a stale escalation tells nobody");
        assertEquals(0, fx.events(escalation), "and writes no event");
    }

    /** @return "metric threshold version runAt" of the ticket's escalations, sorted */
    private List<String> escalations(UUID ticket) {
        return fx.rows("SELECT filters->>'metric', filters->>'threshold', filters->>'version', run_at FROM"
                + " background_task WHERE kind = 'SLA_ESCALATION' AND filters->>'ticketId' = ?", ticket.toString())
                .stream().map(r -> r[0] + " " + r[1] + " " + r[2] + " " + ((Timestamp) r[3]).toInstant()).sorted()
                .toList();
    }

    private UUID escalation(UUID ticket, String metric, String threshold, int version) {
        return (UUID) fx.value("SELECT id FROM background_task WHERE once_key = ?",
                "sla:" + ticket + ":" + metric + ":" + threshold + ":" + version);
    }

    private List<String> recipients(UUID task) {
        return fx.rows("SELECT recipient_id::text FROM notification WHERE task_id = ? ORDER BY 1", task).stream()
                .map(r -> (String) r[0]).toList();
    }

    private SlaClock resolution(UUID ticket) {
        return clock(ticket, SlaClock.Metric.RESOLUTION);
    }

    private SlaClock clock(UUID ticket, SlaClock.Metric metric) {
        return slas.read(team.staff(), team.id(), ticket).clocks().stream().map(TicketSlas.ClockView::clock)
                .filter(c -> c.metric() == metric).findFirst().orElseThrow();
    }

    private static JsonObject json(String text) {
        try (var r = Json.createReader(new StringReader(text))) {
            return r.readObject();
        }
    }
}
