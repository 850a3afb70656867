package com.teamdesk.tasks.it.clock;

import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Sweeps;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.platform.DatabaseClock;
import com.teamdesk.tasks.platform.SystemTime;
import com.teamdesk.tasks.task.spi.TaskJobId;
import jakarta.inject.Inject;
import java.net.URL;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 28, R37: a server whose JVM clock is wrong by {@link #skew()} (a {@link SkewedSystemClock} in its
 * deployment) still keeps the ledger on PostgreSQL's time. Its measured offset is within 1 s of the true one;
 * its stall recovery neither takes over another instance's healthy run (a row written just now by
 * PostgreSQL's clock) nor leaves a truly stale one alone; a reminder scheduled at T is not dispatched before
 * T by PostgreSQL's clock, and is dispatched once T has passed. The sweeps run as the timers run them
 * ({@link Sweeps}: the deployed beans, a transaction per batch); the timers themselves are off so that the
 * test decides when a sweep runs.
 */
abstract class ClockSkewChecks {
    private static final Duration BOUND = Duration.ofSeconds(30);

    static WebArchive deployment(Duration skew) {
        return TestDeployments.app(Map.of("teamdesk.timers.enabled", "false",
                "teamdesk.test.jvm-clock-skew-ms", Long.toString(skew.toMillis())),
                ClockSkewChecks.class, SkewedSystemClock.class, ClockAheadIT.class, ClockBehindIT.class);
    }

    /** @return how wrong this deployment's JVM clock is (positive: ahead of real time) */
    abstract Duration skew();

    @Inject
    DatabaseClock databaseClock;

    @Inject
    Clock clock;

    @Inject
    @SystemTime
    Clock jvm;

    @Inject
    Sweeps sweeps;

    @ArquillianResource
    URL url;

    final TestData data = TestData.inServer();

    @Test
    void theMeasuredOffsetIsTheSkewWithinOneSecond() {
        Duration offset = databaseClock.measure();
        assertTrue(Duration.between(jvm.instant(), Instant.now()).abs().minus(skew().abs()).abs().toMillis() < 1_000,
                "the deployment's JVM clock is skewed by " + skew());
        long error = Math.abs(offset.plus(skew()).toMillis());
        assertTrue(error < 1_000, "offset " + offset + " against a skew of " + skew() + ": off by " + error + " ms");
        long appVsDb = Math.abs(Duration.between(clock.instant(), dbNow()).toMillis());
        assertTrue(appVsDb < 1_000, "the application clock is PostgreSQL's within 1 s: " + appVsDb + " ms");
    }

    @Test
    void stallRecoveryGoesByTheDatabasesClock() {
        TestTeam t = data.newTeam();
        UUID healthy = running(t, "now()");
        UUID stale = running(t, "now() - interval '3 minutes'");
        var recovered = sweeps.recoverStalled(200);
        assertFalse(recovered.contains(TaskJobId.of(healthy, 0)), "a run written just now is healthy: " + recovered);
        assertEquals("RUNNING", data.value("SELECT status FROM background_task WHERE id = ?", healthy));
        assertTrue(recovered.contains(TaskJobId.of(stale, 0)), "a run not written for 3 minutes is stalled");
        assertEquals("WAITING", data.value("SELECT status FROM background_task WHERE id = ?", stale));
    }

    @Test
    void aScheduledReminderIsNotDispatchedBeforeItsTimeByTheDatabasesClock() throws InterruptedException {
        TestTeam t = data.newTeam();
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Scheduled");
        Instant runAt = dbNow().plusSeconds(3);
        Reply r = Api.at(url).post("teams/" + t.id() + "/tasks", Tokens.of(t.owner()), "{\"kind\":\"REMINDER\",\"ticketId\":\""
                + ticket + "\",\"message\":\"At T\",\"runAt\":\"" + runAt + "\"}");
        assertEquals(202, r.status(), r.toString());
        UUID task = UUID.fromString(r.json().getString("id"));
        sweeps.dispatchDue(200);
        if (dbNow().isBefore(runAt)) {
            assertEquals(null, data.value("SELECT dispatched_at FROM background_task WHERE id = ?", task),
                    "not dispatched before runAt by PostgreSQL's clock");
        }
        Instant deadline = Instant.now().plus(BOUND);
        while (data.value("SELECT dispatched_at FROM background_task WHERE id = ?", task) == null) {
            assertTrue(Instant.now().isBefore(deadline), "dispatched once runAt passed by PostgreSQL's clock");
            Thread.sleep(200); // a bounded poll for the database's time to pass runAt, then the sweep again
            sweeps.dispatchDue(200);
        }
        Instant dispatched = instant(data.value("SELECT dispatched_at FROM background_task WHERE id = ?", task));
        assertFalse(dispatched.isBefore(runAt), "dispatched at " + dispatched + ", runAt " + runAt);
        assertTrue(Duration.between(runAt, dispatched).toSeconds() < 10, "and not minutes late: " + dispatched);
    }

    /** A RUNNING export with a lease, last written at {@code updatedAt} (SQL, PostgreSQL's clock). */
    private UUID running(TestTeam t, String updatedAt) {
        UUID id = UUID.randomUUID();
        data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, execution_id, run_at, created_at, updated_at) VALUES (?, 'EXPORT', ?, ?, 'TEAM',"
                + " '{\"timeZone\":\"UTC\"}'::jsonb, 'RUNNING', 0, 1, 10, gen_random_uuid(), now(), now(), " + updatedAt + ")",
                id, t.id(), t.owner());
        return id;
    }

    private Instant dbNow() {
        return instant(data.value("SELECT clock_timestamp()"));
    }

    private static Instant instant(Object v) {
        return v instanceof OffsetDateTime o ? o.toInstant() : ((Timestamp) v).toInstant();
    }
}
