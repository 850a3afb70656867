package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.task.export.ExportPausePoint;
import com.teamdesk.tasks.task.fairshare.BackgroundStatements;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R48 (issue 30) on the production path: with {@code teamdesk.worker.background-statements=1}, an export of the
 * deployed worker that holds the one permit (held at its result write) keeps a second export, claimed meanwhile on
 * another slot, from its first statement, while a reminder (urgent work, never bounded) runs and completes; the first
 * export's end lets the second go on, and both complete with no permit left taken.
 */
@ExtendWith(ArquillianExtension.class)
class BackgroundStatementsIT extends EngineCase {

    @Deployment
    static WebArchive deployment() {
        return deployment(Map.of("teamdesk.worker.concurrency", "4", "teamdesk.worker.reserved-slots", "1",
                "teamdesk.worker.background-statements", "1"), BackgroundStatementsIT.class);
    }

    @Inject
    BackgroundStatements statements;
    @ArquillianResource
    URL url;

    @Override
    protected boolean tracksRunToCompletion() {
        return true;
    }

    @Test
    void aSecondExportWaitsForThePermitWhileRemindersRun() throws Exception {
        assertEquals(1, statements.bound());
        EngineFixtures.TestTeam a = fx.newTeam();
        EngineFixtures.TestTeam b = fx.newTeam();
        fx.tickets(a, 3, "Export ticket");
        UUID first = scheduledExport(a);
        UUID second = scheduledExport(a);
        GatedPausePoints.Gate holding = gates.gate(ExportPausePoint.EXPORT_RESULT_WRITE_PERMIT_HELD, first, 1);
        GatedPausePoints.Gate secondClaimed = gates.gate(EnginePausePoint.AFTER_CLAIM, second, 1);
        long waitsBefore = statements.waits();

        dispatch(first);
        holding.awaitArrival();
        assertEquals(1, statements.running(), "the first export holds the one permit");
        dispatch(second);
        secondClaimed.awaitArrival();
        secondClaimed.release();
        Poll.until(() -> statements.waiting() == 1, Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S),
                "the second export waits for the permit before its first statement");
        assertEquals(0, gates.arrivals(ExportPausePoint.EXPORT_AFTER_BATCH_READ, second), "no batch read meanwhile");
        assertEquals(TaskStatus.RUNNING, ledger.find(second).orElseThrow().status());

        // urgent work is never bounded: a reminder runs and completes while the permit is taken
        UUID ticket = fx.tickets(b, 1, "Reminder ticket").get(0);
        UUID reminder = tasks.create(b.staff(), b.id(), TaskRequests.reminder(ticket.toString(), "Please look",
                "TEAM_STAFF")).id();
        track(reminder);
        Poll.until(() -> ledger.find(reminder).orElseThrow().status() == TaskStatus.COMPLETED,
                Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "the reminder completes while the exports wait");
        assertEquals(1, statements.waiting(), "the second export still waits");
        assertEquals(TaskStatus.RUNNING, ledger.find(first).orElseThrow().status());

        holding.release();
        for (UUID t : List.of(first, second)) {
            Poll.until(() -> ledger.find(t).orElseThrow().status() == TaskStatus.COMPLETED,
                    Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "export " + t + " completes");
        }
        Poll.until(() -> statements.running() == 0, Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S),
                "no permit left taken");
        assertEquals(0, statements.waiting());
        assertTrue(statements.waits() > waitsBefore, "the wait is counted");
        String metrics = Api.at(url).getRoot("metrics").body();
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("teamdesk_background_statement_waits")
                && Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) > waitsBefore), metrics);
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("teamdesk_background_statements{")
                && l.contains("state=\"running\"")), metrics);
    }
}
