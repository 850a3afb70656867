package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.platform.EnlistmentGuard;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.sweep.SweepStatus;
import com.teamdesk.tasks.task.sweep.TaskTimers;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The production EJB timers' transactions (issue 10), observed from outside: the deployed
 * {@code TaskTimers} run on their own schedule (dispatch every 5 s, recovery every 15 s) with a batch
 * size of 2; the test only writes rows, injects faults in PostgreSQL and polls (bounded) for what the
 * timers did. The worker is off, so dispatched jobs wait in Redis and nothing else moves the rows.
 *
 * <ul>
 * <li>each batch of a sweep commits on its own: no transaction marks more rows than a batch;</li>
 * <li>consecutive failing dispatch sweeps do not kill the timer (Payara expunges a timer after two
 * failed deliveries): once the fault is gone, the next tick dispatches what was created meanwhile;</li>
 * <li>stall recovery handles every stale row in one tick, batch after batch;</li>
 * <li>the timers' threads passed the enlistment probe.</li>
 * </ul>
 */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
class ProductionTimersIT {
    private static final int BATCH = 2;
    private static final long WAIT_S = 60;

    @Deployment
    static WebArchive deployment() {
        return EngineCase.deploymentWithoutWorker(Map.of("teamdesk.timers.enabled", "true",
                "teamdesk.dispatch.batch-size", String.valueOf(BATCH)), ProductionTimersIT.class);
    }

    @Inject
    EngineFixtures fx;
    @Inject
    TaskTimers timers;
    @Inject
    EnlistmentGuard enlistment;

    @Test
    void theTimersThreadsEnlistTheirConnections() throws InterruptedException {
        await(() -> enlistment.verdict(TxSite.TIMER) != null, "the timers' enlistment probe never ran");
        assertEquals(EnlistmentGuard.Verdict.ENLISTED, enlistment.verdict(TxSite.TIMER));
    }

    /** Five due rows visible at once are dispatched by one tick in three transactions of at most two rows. */
    @Test
    void eachBatchOfADispatchSweepCommitsOnItsOwn() throws InterruptedException {
        EngineFixtures.TestTeam team = fx.newTeam();
        insertRows(team, 5, "WAITING");
        await(() -> fx.count("SELECT count(*) FROM background_task WHERE team_id = ? AND dispatched_at IS NOT NULL",
                team.id()) == 5, "the dispatch timer never marked the 5 rows");
        long largest = fx.count("SELECT max(n) FROM (SELECT count(*) AS n FROM background_task WHERE team_id = ?"
                + " GROUP BY xmin::text) g", team.id());
        assertTrue(largest <= BATCH, "one transaction marked " + largest + " rows; a batch is " + BATCH
                + ": the sweep ran its batches in one long transaction");
    }

    /**
     * The dispatch sweep fails three ticks in a row (UPDATE on the ledger revoked: its {@code FOR UPDATE}
     * is refused); due rows that appear meanwhile (scheduled tasks coming due) stay undispatched. When the
     * privilege is back, the next tick dispatches them: the timer was never expunged. (Since issue 16 a task
     * created due through the API is marked dispatched by its INSERT and needs no sweep, so the rows are
     * inserted as the sweep finds them.)
     */
    @Test
    void consecutiveFailedDispatchSweepsDoNotKillTheTimer() throws InterruptedException {
        EngineFixtures.TestTeam team = fx.newTeam();
        long failuresBefore = timers.status("dispatch").failures();
        fx.exec("REVOKE UPDATE ON background_task FROM CURRENT_USER");
        try {
            insertRows(team, 3, "WAITING");
            await(() -> timers.status("dispatch").failures() >= failuresBefore + 3,
                    "the dispatch sweep did not fail three times: " + timers.status("dispatch"));
            assertEquals(3, fx.count("SELECT count(*) FROM background_task WHERE team_id = ? AND dispatched_at IS NULL",
                    team.id()), "nothing was dispatched during the outage");
        } finally {
            fx.exec("GRANT UPDATE ON background_task TO CURRENT_USER");
        }
        await(() -> fx.count("SELECT count(*) FROM background_task WHERE team_id = ? AND dispatched_at IS NOT NULL",
                team.id()) == 3, "after the outage the dispatch timer never ran again: "
                + timers.status("dispatch"));
        SweepStatus after = timers.status("dispatch");
        assertEquals("ok", after.lastOutcome());
        assertNotNull(after.nextTimeout(), "the dispatch timer is still scheduled");
    }

    /** Five stale RUNNING rows are all recovered by one tick of the recovery timer, two per transaction. */
    @Test
    void oneRecoveryTickRecoversEveryStaleRowBatchAfterBatch() throws InterruptedException {
        EngineFixtures.TestTeam team = fx.newTeam();
        long runsBefore = timers.status("recovery").runs();
        insertRows(team, 5, "RUNNING");
        // The run in progress when the rows appeared may have missed them; the next one must take all five.
        await(() -> timers.status("recovery").runs() >= runsBefore + 2, "the recovery timer did not run twice");
        assertEquals(0, fx.count("SELECT count(*) FROM background_task WHERE team_id = ? AND status = 'RUNNING'",
                team.id()), "one tick left stale rows RUNNING: " + timers.status("recovery"));
    }

    /**
     * Inserts {@code n} rows of {@code team} in ONE statement (visible at once), due and last written an
     * hour ago: WAITING undispatched, or RUNNING under a lease nobody holds (stale, R19).
     */
    private void insertRows(EngineFixtures.TestTeam team, int n, String status) {
        fx.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, execution_id, run_at, created_at, updated_at) SELECT gen_random_uuid(), 'EXPORT', ?, ?,"
                + " 'TEAM', '{}'::jsonb, '" + status + "', 0, 0, 0, " + ("RUNNING".equals(status) ? "gen_random_uuid()" : "NULL")
                + ", now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour'"
                + " FROM generate_series(1, " + n + ")", team.id(), team.owner());
    }

    /** Bounded poll for a sync point (detects one that never comes; orders nothing). */
    private static void await(BooleanSupplier condition, String message) throws InterruptedException {
        Poll.until(condition, Duration.ofSeconds(WAIT_S), message);
    }
}
