package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.task.export.ExportPausePoint;
import com.teamdesk.tasks.task.fairshare.UrgentWork;
import com.teamdesk.tasks.task.reminder.ReminderPausePoint;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R47 (issue 30) on the production path: the deployed worker's urgent execution, on its own thread, holds an export's
 * next statement and a POST of a background kind back until it ends, and an urgent POST's window is handed over to
 * its job's claim. The deployment's bounds ({@code teamdesk.worker.background-yield-ms} and
 * {@code urgent-handover-ms} 120 s) are far above every wait here, so only the urgent work's end or the claim can
 * have let them go (the default, 0, turns the yield off). Its own deployment: a class that gates urgent work while
 * it needs exports to move on (FairShareIT) keeps the default.
 */
@ExtendWith(ArquillianExtension.class)
class UrgentYieldIT extends EngineCase {

    @Deployment
    static WebArchive deployment() {
        return deployment(Map.of("teamdesk.worker.reserved-slots", "1", "teamdesk.worker.background-yield-ms", "120000",
                "teamdesk.worker.urgent-handover-ms", "120000"), UrgentYieldIT.class);
    }

    @Inject
    UrgentWork urgent;
    @ArquillianResource
    URL url;

    private ExecutorService client;

    @Override
    protected boolean tracksRunToCompletion() {
        return true;
    }

    @BeforeEach
    void startClient() {
        client = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stopClient() throws InterruptedException {
        resetGates();
        client.shutdownNow();
        client.awaitTermination(GatedPausePoints.MAX_WAIT_S, TimeUnit.SECONDS);
    }

    /**
     * While a reminder's execution is in flight (held in its body, after its lease read), an export claimed
     * meanwhile waits before its first statement and reads no batch; the reminder's end lets it go, and it
     * completes.
     */
    @Test
    void anExportsNextStatementWaitsWhileAReminderRuns() throws Exception {
        EngineFixtures.TestTeam a = fx.newTeam();
        EngineFixtures.TestTeam b = fx.newTeam();
        fx.tickets(a, 3, "Export ticket");
        // Created before the reminder is held: a POST of a background kind yields to urgent work too (the next test)
        UUID export = scheduledExport(a);
        GatedPausePoints.Gate inBody = heldReminder(b);
        GatedPausePoints.Gate claimed = gates.gate(EnginePausePoint.AFTER_CLAIM, export, 1);
        long yieldsBefore = urgent.yields();

        dispatch(export);
        claimed.awaitArrival();
        claimed.release();
        Poll.until(() -> urgent.waiting() == 1, Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S),
                "the export's body waits for the reminder before its first statement");
        assertEquals(0, gates.arrivals(ExportPausePoint.EXPORT_AFTER_BATCH_READ, export), "no batch read meanwhile");
        assertEquals(TaskStatus.RUNNING, ledger.find(export).orElseThrow().status());

        inBody.release();
        for (UUID t : tracked()) {
            Poll.until(() -> ledger.find(t).orElseThrow().status() == TaskStatus.COMPLETED,
                    Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "task " + t + " completes");
        }
        assertEquals(0, urgent.openWindows(), "no window left open");
        assertEquals(0, urgent.waiting());
        assertTrue(urgent.yields() > yieldsBefore, "the wait is counted (teamdesk_background_yields)");
    }

    /**
     * While a reminder's execution is in flight, a member's {@code POST} of an export (a background kind) waits
     * before its first read and is not answered; the reminder's end lets it go: 202, and the task exists.
     */
    @Test
    void aPostOfABackgroundKindWaitsWhileAReminderRuns() throws Exception {
        EngineFixtures.TestTeam a = fx.newTeam();
        EngineFixtures.TestTeam b = fx.newTeam();
        GatedPausePoints.Gate inBody = heldReminder(b);
        long tasksBefore = fx.count("SELECT count(*) FROM background_task WHERE team_id = ?", a.id());

        CompletableFuture<Api.Reply> post = CompletableFuture.supplyAsync(() -> Api.at(url).post(
                "teams/" + a.id() + "/tasks", Tokens.of(a.staff()),
                "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\",\"filters\":{\"status\":[\"OPEN\"]}}"), client);
        Poll.until(() -> urgent.waiting() == 1, Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S),
                "the export's POST waits for the reminder before its first read");
        assertFalse(post.isDone(), "no answer while it waits");
        assertEquals(tasksBefore, fx.count("SELECT count(*) FROM background_task WHERE team_id = ?", a.id()),
                "nothing created meanwhile");

        inBody.release();
        Api.Reply reply = post.get(GatedPausePoints.MAX_WAIT_S, TimeUnit.SECONDS);
        assertEquals(202, reply.status(), reply.toString());
        track(UUID.fromString(reply.json().getString("id")));
        assertEquals(tasksBefore + 1, fx.count("SELECT count(*) FROM background_task WHERE team_id = ?", a.id()));
        assertEquals(0, urgent.waiting());
    }

    /**
     * A member's {@code POST} of a reminder due now: its urgent window outlives the answer until the deployed worker
     * claims the job (the hand-over's 120 s deadline is far above the test), and no window is left open after.
     */
    @Test
    void anUrgentPostsWindowIsHandedOverToItsJobsClaim() throws Exception {
        EngineFixtures.TestTeam b = fx.newTeam();
        UUID ticket = fx.tickets(b, 1, "Reminder ticket").get(0);
        long claimedBefore = urgent.handOversClaimed();

        Api.Reply reply = Api.at(url).post("teams/" + b.id() + "/tasks", Tokens.of(b.staff()),
                "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"Please look\","
                        + "\"recipients\":\"TEAM_STAFF\"}");
        assertEquals(202, reply.status(), reply.toString());
        UUID reminder = UUID.fromString(reply.json().getString("id"));
        track(reminder);
        Poll.until(() -> ledger.find(reminder).orElseThrow().status() == TaskStatus.COMPLETED,
                Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "the reminder completes");
        Poll.until(() -> urgent.openWindows() == 0, Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S),
                "no window left open once the execution ended");
        assertEquals(claimedBefore + 1, urgent.handOversClaimed(), "the POST's window was closed by the job's claim");
        assertEquals(0, urgent.handedOver());
        String metrics = Api.at(url).getRoot("metrics").body();
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("teamdesk_urgent_handovers{") && l.contains("ended=\"claimed\"")
                && Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) >= claimedBefore + 1), metrics);
    }

    /** A reminder of {@code team}'s dispatched now and held in its body (its urgent window open). */
    private GatedPausePoints.Gate heldReminder(EngineFixtures.TestTeam team) throws InterruptedException {
        UUID ticket = fx.tickets(team, 1, "Reminder ticket").get(0);
        String runAt = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1).toString();
        UUID reminder = tasks.create(team.staff(), team.id(),
                TaskRequests.reminder(ticket.toString(), "Please look at this", "TEAM_STAFF", runAt)).id();
        track(reminder);
        GatedPausePoints.Gate inBody = gates.gate(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, reminder, 1);
        dispatch(reminder);
        inBody.awaitArrival();
        assertEquals(1, urgent.openWindows(), "the reminder's execution holds one urgent window");
        return inBody;
    }
}
