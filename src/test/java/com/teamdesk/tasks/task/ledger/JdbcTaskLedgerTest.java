package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.export.ExportResultStore;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.testing.TestDatabase;
import jakarta.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.ds.PGSimpleDataSource;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ledger's SQL straight against PostgreSQL, no server (as db-scheduler tests its own): a schema of
 * its own on the test database, migrated with the application's Flyway scripts, and sessions whose time
 * zone is {@code America/Los_Angeles} (the JVM's is {@code America/Sao_Paulo}), so that an instant bound
 * or read through a local time would show up. Times are fixed instants around the hour that repeats when
 * Los Angeles leaves daylight saving time. Every session has a 5 s {@code lock_timeout}: a sweep that
 * waited on a locked row instead of skipping it fails instead of hanging.
 */
class JdbcTaskLedgerTest {

    private static final String SESSION_ZONE = "America/Los_Angeles";
    /** 01:30:00.123456 PDT on 2026-11-01; one hour later the wall clock shows 01:30 again (PST). */
    private static final Instant T0 = Instant.parse("2026-11-01T08:30:00.123456Z");

    private static String schema;
    private static PGSimpleDataSource sessions;
    private static UUID team;
    private static UUID owner;

    private final JdbcTaskLedger ledger = new JdbcTaskLedger();
    private ExportResultStore store;

    @BeforeAll
    static void migrateAPrivateSchema() throws SQLException {
        schema = "ledger_test_" + UUID.randomUUID().toString().substring(0, 8);
        sessions = TestDatabase.inNewSchema(new LosAngelesSessions(), schema);
        sessions.setOptions("-c lock_timeout=5s");
        Flyway.configure().dataSource(sessions).schemas(schema).locations("classpath:db/migration").load().migrate();
        team = UUID.randomUUID();
        owner = UUID.randomUUID();
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, ?)", team, "ledger-" + team, "Ledger test");
        exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, ?)", owner, "owner-" + owner, "Owner");
    }

    @AfterAll
    static void dropTheSchema() throws SQLException {
        if (schema != null) {
            exec("DROP SCHEMA " + schema + " CASCADE");
        }
    }

    @BeforeEach
    void emptyLedger() throws SQLException {
        ledger.jdbc = new Jdbc(sessions);
        store = new ExportResultStore(new Jdbc(sessions), ledger);
        exec("DELETE FROM background_task");
    }

    @Test
    void sessionsRunInANonUtcTimeZone() throws SQLException {
        try (Connection c = sessions.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT current_setting('TimeZone'), current_setting('lock_timeout')")) {
            assertTrue(rs.next());
            assertEquals(SESSION_ZONE, rs.getString(1));
            assertEquals("5s", rs.getString(2));
        }
    }

    @Test
    void instantsRoundTripExactlyAcrossTheRepeatedLocalHour() throws SQLException, IOException {
        Instant pdt = T0;                                 // 01:30:00.123456 PDT
        Instant pst = T0.plus(Duration.ofHours(1));       // 01:30:00.123456 PST, same wall clock
        UUID a = insert(pdt, pdt);
        UUID b = insert(pst, pst);

        BackgroundTask ta = ledger.find(a).orElseThrow();
        BackgroundTask tb = ledger.find(b).orElseThrow();
        assertEquals(pdt, ta.runAt());
        assertEquals(pdt, ta.createdAt());
        assertEquals(pdt, ta.updatedAt());
        assertEquals(pst, tb.runAt());
        assertEquals(Duration.ofHours(1), Duration.between(ta.runAt(), tb.runAt()));
        assertEquals("2026-11-01 08:30:00.123456", utcText("run_at", a), "stored as the instant, not the wall clock");
        assertEquals("2026-11-01 09:30:00.123456", utcText("run_at", b));

        Instant expires = Instant.parse("2027-03-14T09:59:59.999999Z"); // just before LA's spring-forward gap
        Lease lease = ledger.claim(a, 0, 0, pst).orElseThrow().lease();
        complete(lease, "x\n", "1 row", expires, pst);
        BackgroundTask done = ledger.find(a).orElseThrow();
        assertEquals(expires, done.expiresAt());
        assertEquals(pst, done.updatedAt());
    }

    /**
     * Issue 16's request path: the INSERT returns the row it wrote, marked dispatched when the task is due;
     * a failed queue add takes exactly that mark back (and nothing else), so the dispatch sweep finds it.
     */
    @Test
    void anInsertReturnsItsRowMarkedDispatchedAndOnlyThatMarkIsTakenBack() {
        UUID id = UUID.randomUUID();
        BackgroundTask row = ledger.insert(id, TaskKind.of("EXPORT"), team, owner, TaskScope.TEAM, "{\"status\": [\"OPEN\"]}",
                T0, T0, true);
        assertEquals(ledger.find(id).orElseThrow(), row, "the RETURNING row is the stored row");
        assertEquals(T0, row.dispatchedAt());
        assertEquals(List.of(), jobs(ledger.lockDueForDispatch(T0.plusSeconds(1), 10, null)), "dispatched: not for the sweep");
        TaskJobId job = TaskJobId.of(id, 0);
        assertFalse(ledger.undispatch(job, T0.plusNanos(1000)), "another mark is not taken back");
        assertTrue(ledger.undispatch(job, T0));
        assertNull(ledger.find(id).orElseThrow().dispatchedAt());
        assertEquals(List.of(job), jobs(ledger.lockDueForDispatch(T0.plusSeconds(1), 10, null)), "the sweep adds it");
        assertFalse(ledger.undispatch(job, T0), "nothing left to take back");

        UUID later = UUID.randomUUID();
        assertNull(ledger.insert(later, TaskKind.of("EXPORT"), team, owner, TaskScope.TEAM, "{}", T0.plusSeconds(60), T0, false)
                .dispatchedAt(), "a scheduled task waits for the sweep");
    }

    @Test
    void claimTakesAWaitingOrRunningRowOfItsRunOnly() {
        UUID id = insert(T0, T0);
        assertTrue(ledger.claim(id, 1, 0, T0).isEmpty(), "R7: another run's message claims nothing");

        JdbcTaskLedger.Claim first = ledger.claim(id, 0, 0, T0.plusSeconds(1)).orElseThrow();
        BackgroundTask row = first.task();
        assertEquals(TaskStatus.RUNNING, row.status());
        assertEquals(first.lease().executionId(), row.executionId());
        assertEquals(1, row.attempts(), "R3: attemptsMade + 1");
        assertEquals(0, row.progress());
        assertEquals(T0.plusSeconds(1), row.updatedAt());
        assertEquals(new Lease(id, 0, row.executionId(), 1), first.lease());
        assertEquals(row, ledger.find(id).orElseThrow(), "RETURNING gives the row as stored");

        ledger.writeProgress(first.lease(), 40, T0.plusSeconds(2));
        JdbcTaskLedger.Claim takeover = ledger.claim(id, 0, 1, T0.plusSeconds(3)).orElseThrow();
        assertNotEquals(first.lease().executionId(), takeover.lease().executionId(), "a fresh fencing token");
        assertEquals(2, takeover.task().attempts());
        assertEquals(0, takeover.task().progress(), "R10: a new claim resets progress");

        completeReminder(ledger, takeover.lease(), T0.plusSeconds(4));
        assertTrue(ledger.claim(id, 0, 2, T0.plusSeconds(5)).isEmpty(), "R12: a COMPLETED row is not claimed");
        assertEquals(TaskStatus.COMPLETED, ledger.find(id).orElseThrow().status());
    }

    /**
     * Issue 16 (docs/decisions.md "Claims commit asynchronously"): a claim, single or combined, commits with
     * {@code synchronous_commit} off, and only its own transaction does: the connection goes back to the pool
     * with the setting on, so the lease-checked writes that follow on it (the completion) commit synchronously.
     * A trigger of this test records the setting each claim's UPDATE ran with.
     */
    @Test
    void aClaimCommitsAsynchronouslyAndOnlyItself() throws SQLException {
        UUID a = insert(T0, T0);
        UUID b = insert(T0, T0);
        exec("CREATE TABLE claim_commit_seen (id uuid, setting text)");
        exec("CREATE FUNCTION claim_commit_seen() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " INSERT INTO claim_commit_seen VALUES (NEW.id, current_setting('synchronous_commit')); RETURN NEW; END $$");
        exec("CREATE TRIGGER claim_commit_seen AFTER UPDATE ON background_task FOR EACH ROW EXECUTE FUNCTION claim_commit_seen()");
        try (Connection c = sessions.getConnection()) {
            ledger.jdbc = new Jdbc(oneConnection(c));
            JdbcTaskLedger.Claim single = ledger.claim(a, 0, 0, T0.plusSeconds(1)).orElseThrow();
            assertEquals("on", setting(c), "the claim's setting ended with its transaction");
            List<Optional<JdbcTaskLedger.Claim>> combined = ledger.claimAll(List.of(
                    new JdbcTaskLedger.ClaimRequest(a, 0, 1, "w", T0.plusSeconds(2)),
                    new JdbcTaskLedger.ClaimRequest(b, 0, 0, "w", T0.plusSeconds(2))));
            assertTrue(combined.stream().allMatch(Optional::isPresent));
            assertEquals("on", setting(c), "the combined claim's setting ended with its transaction");
            assertNotEquals(single.lease(), combined.get(0).orElseThrow().lease(), "the combined claim took over");
        } finally {
            exec("DROP TRIGGER IF EXISTS claim_commit_seen ON background_task");
            ledger.jdbc = new Jdbc(sessions);
        }
        List<String> seen = new ArrayList<>();
        try (Connection c = sessions.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT setting FROM claim_commit_seen")) {
            while (rs.next()) {
                seen.add(rs.getString(1));
            }
        } finally {
            exec("DROP TABLE claim_commit_seen");
            exec("DROP FUNCTION claim_commit_seen()");
        }
        assertEquals(List.of("off", "off", "off"), seen, "one single and two combined claims, each asynchronous");
    }

    private static String setting(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW synchronous_commit")) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    /**
     * Issue 16: claims combined into one statement behave as the same claims one after the other (R7): each
     * row by its own condition, a fresh token each, an old run's or a finished task's claim empty, a
     * RUNNING row taken over, a task asked twice claimed by the later request; and each lease fences only
     * its own row.
     */
    @Test
    void claimAllClaimsEachRowByItsOwnConditionInOneStatement() {
        UUID waiting = insert(T0, T0);
        UUID running = insert(T0, T0);
        UUID done = insert(T0, T0);
        UUID twice = insert(T0, T0);
        Lease old = ledger.claim(running, 0, 0, T0).orElseThrow().lease();
        Lease finished = ledger.claim(done, 0, 0, T0).orElseThrow().lease();
        completeReminder(ledger, finished, T0);
        Instant now = T0.plusSeconds(5);

        List<Optional<JdbcTaskLedger.Claim>> claims = ledger.claimAll(List.of(
                new JdbcTaskLedger.ClaimRequest(waiting, 0, 0, "w1", now),
                new JdbcTaskLedger.ClaimRequest(running, 0, 1, "w2", now),
                new JdbcTaskLedger.ClaimRequest(done, 0, 0, "w1", now),
                new JdbcTaskLedger.ClaimRequest(waiting, 1, 0, "w1", now),
                new JdbcTaskLedger.ClaimRequest(twice, 0, 0, "w1", now),
                new JdbcTaskLedger.ClaimRequest(twice, 0, 1, "w2", now.plusSeconds(1))));
        assertEquals(6, claims.size());
        Lease first = claims.get(0).orElseThrow().lease();
        assertEquals(TaskStatus.RUNNING, claims.get(0).orElseThrow().task().status());
        assertEquals(1, first.attempts());
        assertEquals(first.executionId(), claims.get(0).orElseThrow().task().executionId());
        assertEquals(now, claims.get(0).orElseThrow().task().updatedAt());
        Lease takeover = claims.get(1).orElseThrow().lease();
        assertEquals(2, takeover.attempts(), "R3: attemptsMade + 1");
        assertNotEquals(old.executionId(), takeover.executionId(), "R7: a RUNNING row is taken over");
        assertTrue(claims.get(2).isEmpty(), "R12: a COMPLETED row is not claimed");
        assertTrue(claims.get(3).isEmpty(), "R17: another run's message is not claimed");
        Lease early = claims.get(4).orElseThrow().lease();
        Lease later = claims.get(5).orElseThrow().lease();
        assertNotEquals(early.executionId(), later.executionId());
        assertEquals(later.executionId(), ledger.find(twice).orElseThrow().executionId(),
                "the later request takes over, as one after the other");

        assertThrows(LeaseLost.class, () -> ledger.writeProgress(old, 10, now), "R8: the replaced lease");
        assertThrows(LeaseLost.class, () -> ledger.writeProgress(early, 10, now));
        ledger.writeProgress(first, 10, now);
        ledger.writeProgress(takeover, 20, now);
        ledger.writeProgress(later, 30, now);
        assertEquals(List.of(10, 20, 30), List.of(ledger.find(waiting).orElseThrow().progress(),
                ledger.find(running).orElseThrow().progress(), ledger.find(twice).orElseThrow().progress()));
        assertEquals(1, ledger.claimAll(List.of(new JdbcTaskLedger.ClaimRequest(done, 0, 0, "w", now))).size());
    }

    /**
     * A combined claim that meets a row locked by a completion waits for it, then leaves that claim empty
     * (the row is COMPLETED now) and claims the others: the same re-check as a single claim's.
     */
    @Test
    void claimAllRechecksARowItWaitedFor() throws Exception {
        UUID busy = insert(T0, T0);
        UUID free = insert(T0, T0);
        Lease lease = ledger.claim(busy, 0, 0, T0).orElseThrow().lease();
        List<Optional<JdbcTaskLedger.Claim>> claims;
        try (Connection tx = sessions.getConnection()) {
            tx.setAutoCommit(false);
            JdbcTaskLedger inTx = new JdbcTaskLedger();
            inTx.jdbc = new Jdbc(oneConnection(tx));
            completeReminder(inTx, lease, T0.plusSeconds(1)); // not committed yet: holds the row
            var combined = java.util.concurrent.CompletableFuture.supplyAsync(() -> ledger.claimAll(List.of(
                    new JdbcTaskLedger.ClaimRequest(free, 0, 0, "w", T0.plusSeconds(2)),
                    new JdbcTaskLedger.ClaimRequest(busy, 0, 1, "w", T0.plusSeconds(2)))));
            awaitBlockedOnALock(combined, "WITH j AS%");
            tx.commit();
            claims = combined.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertTrue(claims.get(0).isPresent());
        assertTrue(claims.get(1).isEmpty(), "COMPLETED while the claim waited: not claimed");
        assertEquals(TaskStatus.COMPLETED, ledger.find(busy).orElseThrow().status());
        assertEquals(TaskStatus.RUNNING, ledger.find(free).orElseThrow().status());
    }

    @Test
    void everyWriteOfAnExecutionThatLostItsLeaseMatchesNothingAndThrowsLeaseLost() throws SQLException {
        UUID id = insert(T0, T0);
        Lease stale = ledger.claim(id, 0, 0, T0).orElseThrow().lease();
        Lease current = ledger.claim(id, 0, 0, T0.plusSeconds(1)).orElseThrow().lease();
        BackgroundTask snapshot = ledger.find(id).orElseThrow();

        assertThrows(LeaseLost.class, () -> ledger.writeProgress(stale, 50, T0.plusSeconds(2)));
        assertThrows(LeaseLost.class, () -> ledger.readUnderLease(stale));
        byte[] staleBytes = "stale\n".getBytes(StandardCharsets.UTF_8);
        assertThrows(LeaseLost.class, () -> store.writeResultChunk(stale, 0, in(staleBytes), staleBytes.length,
                T0.plusSeconds(2)), "R8: a stale execution's chunk is refused");
        assertEquals(0, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", id), "and not stored");
        assertThrows(LeaseLost.class, () -> store.completeExport(stale, 0, in(staleBytes), staleBytes.length, 6,
                sha256("stale\n"), "s", T0, T0.plusSeconds(2)));
        assertEquals(0, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", id),
                "a refused completion stores no last chunk");
        assertThrows(LeaseLost.class, () -> completeReminder(ledger, stale, T0.plusSeconds(2)));
        assertFalse(ledger.reportFailure(stale, true, "late", T0.plusSeconds(2)), "R11: 0 rows, return quietly");
        assertEquals(snapshot, ledger.find(id).orElseThrow(), "R8: nothing written, updatedAt included");

        ledger.writeProgress(current, 50, T0.plusSeconds(3));
        assertEquals(50, ledger.readUnderLease(current).progress());
        assertEquals(T0.plusSeconds(3), ledger.find(id).orElseThrow().updatedAt(), "progress moves updatedAt");
        complete(current, "a,b\r\n", "1 row", T0.plus(Duration.ofHours(24)), T0.plusSeconds(4));
        BackgroundTask done = ledger.find(id).orElseThrow();
        assertEquals(TaskStatus.COMPLETED, done.status());
        assertEquals(100, done.progress());
        assertNull(done.executionId());
        assertEquals(5, done.resultBytes());
        assertEquals(sha256("a,b\r\n"), done.resultDigest());
        assertThrows(LeaseLost.class, () -> ledger.writeProgress(current, 60, T0.plusSeconds(5)),
                "the lease ends with the run");
    }

    /**
     * Issue 16: the lease-checked writes find their row through the primary key in their generic plan
     * (the plan pgjdbc's server-side statements run after a few executions), also when the table was
     * analysed while no row was RUNNING. Their condition used to name {@code status = 'RUNNING'}, which
     * matched the predicate of the partial {@code background_task_running_idx}: with such statistics
     * that index looks one page small, and the planner scanned all of it (dead entries too) for
     * every write of every execution. The statements checked are the ones the ledger sends.
     */
    @Test
    void leaseCheckedWritesFindTheirRowByItsPrimaryKeyWhateverTheStatisticsSay() throws Exception {
        exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts, progress,"
                + " run_at, created_at, updated_at) SELECT gen_random_uuid(), 'EXPORT', ?, ?, 'SELF', '{}', 'COMPLETED',"
                + " 0, 1, 100, now(), now(), now() FROM generate_series(1, 2000)", team, owner);
        exec("ANALYZE background_task");
        Lease lease = ledger.claim(insert(T0, T0), 0, 0, T0).orElseThrow().lease();
        Lease failing = ledger.claim(insert(T0, T0), 0, 0, T0).orElseThrow().lease();
        List<String> sent = new ArrayList<>();
        ledger.jdbc = new Jdbc(recording(sent));
        store = new ExportResultStore(ledger.jdbc, ledger);
        byte[] line = "a\n".getBytes(StandardCharsets.UTF_8);
        ledger.writeProgress(lease, 10, T0.plusSeconds(1));
        store.writeResultChunk(lease, 0, in(line), line.length, T0.plusSeconds(1));
        assertEquals(10, ledger.readUnderLease(lease).progress());
        store.completeExport(lease, 1, in(line), line.length, 2L * line.length, sha256("a\na\n"), "2 rows",
                T0.plus(Duration.ofHours(24)), T0.plusSeconds(2));
        assertTrue(ledger.reportFailure(failing, true, "failed", T0.plusSeconds(2)));
        assertEquals(5, sent.size(), String.join("\n", sent));
        for (String sql : sent) {
            String plan = genericPlan(sql);
            assertFalse(plan.contains("background_task_running_idx"), sql + "\n" + plan);
            assertTrue(plan.contains("\"Index Name\": \"background_task_pkey\""), sql + "\n" + plan);
        }
    }

    @Test
    void failureReportsRetryWaitingOrFailForGoodUnderTheLease() {
        UUID id = insert(T0, T0);
        Lease first = ledger.claim(id, 0, 0, T0).orElseThrow().lease();
        assertTrue(ledger.reportFailure(first, false, "Export failed, will retry", T0.plusSeconds(1)));
        BackgroundTask waiting = ledger.find(id).orElseThrow();
        assertEquals(TaskStatus.WAITING, waiting.status());
        assertNull(waiting.executionId());
        assertEquals("Export failed, will retry", waiting.lastError());
        assertFalse(ledger.reportFailure(first, true, "again", T0.plusSeconds(2)), "the lease was cleared");

        Lease second = ledger.claim(id, 0, 1, T0.plusSeconds(3)).orElseThrow().lease();
        assertEquals(2, second.attempts());
        assertTrue(ledger.reportFailure(second, true, "Export failed", T0.plusSeconds(4)));
        BackgroundTask failed = ledger.find(id).orElseThrow();
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals(2, failed.attempts());
        assertEquals(T0.plusSeconds(4), failed.updatedAt());
        assertTrue(ledger.claim(id, 0, 2, T0.plusSeconds(5)).isEmpty(), "a FAILED row is not claimed");
    }

    /**
     * V8: only a write a client can see takes a change sequence (the live events' id) and, while some
     * instance listens (R33), is announced; a write nobody sees (the dispatch mark, a lease-check write
     * that leaves progress as it was) fires no trigger and keeps the row's sequence.
     */
    @Test
    void onlyVisibleChangesTakeAChangeSequenceAndAreAnnounced() throws Exception {
        try (Connection listener = sessions.getConnection(); Statement st = listener.createStatement()) {
            st.execute("LISTEN \"teamdesk_task:" + schema + "\"");
            exec("INSERT INTO live_interest (instance_id, until) VALUES ('ledger-test', now() + interval '1 hour')");
            try {
                UUID id = insert(T0, T0);
                long inserted = changeSeq(id);
                assertEquals(1, ledger.markDispatched(List.of(TaskJobId.of(id, 0)), T0.plusSeconds(1)));
                assertEquals(inserted, changeSeq(id), "the dispatch mark is not a visible change");
                Lease lease = ledger.claim(id, 0, 0, T0.plusSeconds(2)).orElseThrow().lease();
                long claimed = changeSeq(id);
                assertTrue(claimed > inserted, "a claim is");
                ledger.writeProgress(lease, 0, T0.plusSeconds(3));
                assertEquals(claimed, changeSeq(id), "a lease-check write that leaves progress as it was is not");
                ledger.writeProgress(lease, 40, T0.plusSeconds(4));
                long progressed = changeSeq(id);
                assertTrue(progressed > claimed, "new progress is");

                List<String> seen = new ArrayList<>();
                PGConnection pg = listener.unwrap(PGConnection.class);
                for (int i = 0; i < 20 && seen.size() < 3; i++) {
                    PGNotification[] got = pg.getNotifications(250);
                    for (PGNotification n : got == null ? new PGNotification[0] : got) {
                        JsonObject o = Jsons.PROVIDER.createReader(new StringReader(n.getParameter())).readObject();
                        assertEquals(id.toString(), o.getString("id"));
                        seen.add(o.getString("status") + "/" + o.getInt("progress") + "@" + o.getJsonNumber("seq").longValue());
                    }
                }
                assertEquals(List.of("WAITING/0@" + inserted, "RUNNING/0@" + claimed, "RUNNING/40@" + progressed), seen,
                        "the insert, the claim and the new progress are announced, each once, in order");
                PGNotification[] more = pg.getNotifications(100);
                assertEquals(0, more == null ? 0 : more.length, "nothing else");
            } finally {
                exec("DELETE FROM live_interest");
            }
        }
    }

    private static long changeSeq(UUID id) throws SQLException {
        try (Connection c = sessions.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT change_seq FROM background_task WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getLong(1);
            }
        }
    }

    @Test
    void retryStartsTheNextRunOfAFailedTaskWithEveryExecutionFieldReset() throws IOException {
        UUID id = insert(T0, T0);
        assertEquals(1, ledger.markDispatched(List.of(TaskJobId.of(id, 0)), T0));
        Lease lease = ledger.claim(id, 0, 0, T0).orElseThrow().lease();
        ledger.writeProgress(lease, 70, T0.plusSeconds(1));
        assertTrue(ledger.reportFailure(lease, true, "Export failed", T0.plusSeconds(2)));
        BackgroundTask before = ledger.find(id).orElseThrow();
        assertNotNull(before.dispatchedAt());

        assertTrue(ledger.retry(id, 1, T0.plusSeconds(3)).isEmpty(), "expected run must match");
        Instant now = T0.plus(Duration.ofHours(1)); // the repeated 01:30 local
        BackgroundTask after = ledger.retry(id, 0, now).orElseThrow();
        assertEquals(1, after.run(), "R16: run + 1");
        assertEquals(TaskStatus.WAITING, after.status());
        assertEquals(0, after.progress());
        assertEquals(0, after.attempts());
        assertNull(after.lastError());
        assertNull(after.executionId());
        assertNull(after.dispatchedAt());
        assertNull(after.resultDigest());
        assertNull(after.resultSummary());
        assertNull(after.expiresAt());
        assertEquals(now, after.runAt());
        assertEquals(now, after.updatedAt());
        assertEquals(List.of(before.id(), before.kind(), before.teamId(), before.ownerId(), before.params(),
                before.scope(), before.createdAt()),
                List.of(after.id(), after.kind(), after.teamId(), after.ownerId(), after.params(), after.scope(),
                        after.createdAt()), "R16: identity, owner, team, kind, filters and scope are kept");
        assertEquals(after, ledger.find(id).orElseThrow());

        assertTrue(ledger.retry(id, 0, now).isEmpty(), "only a FAILED task is retried");
        assertTrue(ledger.claim(id, 0, 0, now).isEmpty(), "R17: the old run's message returns at claim");
        assertEquals(1, ledger.claim(id, 1, 0, now).orElseThrow().lease().run());
    }

    @Test
    void dispatchLocksDueRowsAndASecondSweepSkipsThemWithoutWaiting() throws SQLException {
        UUID early = insert(T0.minusSeconds(60), T0);
        UUID later = insert(T0.minusSeconds(30), T0);
        UUID notDue = insert(T0.plusSeconds(3600), T0);

        try (Connection tx = sessions.getConnection()) {
            tx.setAutoCommit(false);
            JdbcTaskLedger first = new JdbcTaskLedger();
            first.jdbc = new Jdbc(oneConnection(tx));
            assertEquals(List.of(TaskJobId.of(early, 0)), jobs(first.lockDueForDispatch(T0, 1, null)), "oldest runAt first");

            assertEquals(List.of(TaskJobId.of(later, 0)), jobs(ledger.lockDueForDispatch(T0, 10, null)),
                    "R18: another instance's sweep skips the locked row (SKIP LOCKED), does not wait");
            assertEquals(1, first.markDispatched(List.of(TaskJobId.of(early, 0)), T0));
            tx.commit();
        }
        assertEquals(T0, ledger.find(early).orElseThrow().dispatchedAt());
        assertEquals(List.of(TaskJobId.of(later, 0)), jobs(ledger.lockDueForDispatch(T0, 10, null)),
                "dispatched and not-yet-due rows are not offered");
        assertEquals(List.of(), jobs(ledger.lockDueForDispatch(T0, 10, notDue)));
        assertEquals(List.of(TaskJobId.of(notDue, 0)), jobs(ledger.lockDueForDispatch(T0.plusSeconds(3600), 10, notDue)),
                "due at exactly runAt");
        assertEquals(0, ledger.markDispatched(List.of(TaskJobId.of(later, 1)), T0), "another run is not marked");
    }

    /**
     * Issue 51, fix on the way: an instance whose clock is a few milliseconds behind the claiming one's ends an
     * execution (a takeover, a stall recovery) at an instant before its claim; the entry ends at its claim instead,
     * never before it, and the incident view says the same.
     */
    @Test
    void anExecutionNeverEndsBeforeItsClaimWhateverTheEndingInstancesClock() throws SQLException {
        UUID taken = insert(T0, T0);
        UUID stalled = insert(T0, T0);
        Instant claimed = T0.plusMillis(10);
        ledger.claim(stalled, 0, 0, claimed).orElseThrow();
        assertEquals(List.of(TaskJobId.of(stalled, 0)), ledger.recoverStalled(claimed.plusSeconds(1), 10,
                claimed.minusMillis(3)), "recovered by an instance whose clock is 3 ms behind");
        Lease first = ledger.claim(taken, 0, 0, claimed).orElseThrow().lease();
        Lease second = ledger.claim(taken, 0, 1, claimed.minusMillis(4)).orElseThrow().lease(); // a clock 4 ms behind
        for (UUID task : List.of(taken, stalled)) {
            assertEquals(1, count("SELECT count(*) FROM task_execution WHERE task_id = ? AND ended_at = claimed_at", task),
                    "the ended execution ends at its claim, not before");
            assertEquals(1, count("SELECT count(*) FROM task_execution_incident i JOIN task_execution e USING"
                    + " (execution_id) WHERE e.task_id = ? AND i.ended_at = i.claimed_at", task), "the incident view agrees");
        }
        assertEquals(1, count("SELECT count(*) FROM task_execution WHERE execution_id = ? AND outcome = 'TAKEN_OVER'",
                first.executionId()));
        assertEquals(0, count("SELECT count(*) FROM task_execution WHERE ended_at < claimed_at"));
        assertNull(ledger.find(taken).orElseThrow().lastError());
        assertEquals(second.executionId(), ledger.find(taken).orElseThrow().executionId());
        SQLException refused = assertThrows(SQLException.class, () -> exec("UPDATE task_execution SET ended_at ="
                + " claimed_at - interval '1 millisecond' WHERE execution_id = ?", second.executionId()));
        assertEquals("23514", refused.getSQLState(), "the constraint refuses an end before the claim");
    }

    @Test
    void recoverStalledReturnsRunningRowsNotWrittenSinceTheCutoffAndSkipsLockedOnes() throws SQLException {
        UUID stalled = insert(T0, T0);
        UUID alive = insert(T0, T0);
        UUID waiting = insert(T0, T0);
        assertEquals(2, ledger.markDispatched(List.of(TaskJobId.of(stalled, 0), TaskJobId.of(alive, 0)), T0));
        Lease old = ledger.claim(stalled, 0, 0, T0).orElseThrow().lease();
        Lease busy = ledger.claim(alive, 0, 0, T0).orElseThrow().lease();
        ledger.writeProgress(busy, 10, T0.plus(Duration.ofMinutes(3)));
        Instant cutoff = T0.plus(Duration.ofMinutes(2));
        Instant now = T0.plus(Duration.ofMinutes(4));

        try (Connection other = sessions.getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement ps = other.prepareStatement("SELECT 1 FROM background_task WHERE id = ? FOR UPDATE")) {
                ps.setObject(1, stalled);
                ps.executeQuery().close();
            }
            assertEquals(List.of(), ledger.recoverStalled(cutoff, 10, now), "a row another session holds is skipped");
            other.rollback();
        }

        assertEquals(List.of(TaskJobId.of(stalled, 0)), ledger.recoverStalled(cutoff, 10, now), "R19");
        BackgroundTask recovered = ledger.find(stalled).orElseThrow();
        assertEquals(TaskStatus.WAITING, recovered.status());
        assertNull(recovered.executionId());
        assertNull(recovered.dispatchedAt());
        assertEquals(now, recovered.updatedAt());
        assertThrows(LeaseLost.class, () -> ledger.writeProgress(old, 20, now), "the stalled execution's lease is gone");
        assertEquals(TaskStatus.RUNNING, ledger.find(alive).orElseThrow().status(), "written after the cutoff");
        assertEquals(busy.executionId(), ledger.find(alive).orElseThrow().executionId());
        assertEquals(TaskStatus.WAITING, ledger.find(waiting).orElseThrow().status());
        assertEquals(List.of(), ledger.recoverStalled(cutoff, 10, now));
    }

    /**
     * Issue 16: the result is the completing execution's chunks, streamed in order; chunks a stale
     * execution wrote before it lost its lease are dropped at completion and never served; the sweep
     * removes chunks of executions that are gone but never those of a running one; the purge of an
     * expired result removes its chunks; a result whose chunks are missing fails instead of ending early.
     */
    @Test
    void resultChunksAreTheWinnersOnlyAndGoWithTheirResult() throws SQLException, IOException {
        UUID id = insert(T0, T0);
        Lease stale = ledger.claim(id, 0, 0, T0).orElseThrow().lease();
        byte[] old = "OLD,OLD\r\n".getBytes(StandardCharsets.UTF_8);
        store.writeResultChunk(stale, 0, in(old), old.length, T0);
        store.writeResultChunk(stale, 1, in(old), 3, T0);
        Lease current = ledger.claim(id, 0, 1, T0.plusSeconds(1)).orElseThrow().lease();
        assertThrows(LeaseLost.class, () -> store.writeResultChunk(stale, 2, in(old), old.length, T0.plusSeconds(2)));
        complete(current, "\uFEFFid,title\r\n1,\"a, b\"\r\n", "1 ticket exported", T0.plus(Duration.ofHours(24)),
                T0.plusSeconds(3));
        assertEquals("\uFEFFid,title\r\n1,\"a, b\"\r\n", download(id), "the winner's chunks, in order");
        assertEquals(0, count("SELECT count(*) FROM task_result_chunk WHERE execution_id = ?", stale.executionId()),
                "the stale execution's chunks are gone at completion");
        assertEquals(sha256("\uFEFFid,title\r\n1,\"a, b\"\r\n"), ledger.find(id).orElseThrow().resultDigest());

        UUID died = insert(T0, T0);
        Lease gone = ledger.claim(died, 0, 0, T0).orElseThrow().lease();
        store.writeResultChunk(gone, 0, in(old), old.length, T0);
        UUID running = insert(T0, T0);
        Lease alive = ledger.claim(running, 0, 0, T0).orElseThrow().lease();
        store.writeResultChunk(alive, 0, in(old), old.length, T0);
        ledger.writeProgress(alive, 10, T0.plusSeconds(3));
        assertEquals(List.of(TaskJobId.of(died, 0)), ledger.recoverStalled(T0.plusSeconds(2), 10, T0.plusSeconds(5)));
        assertEquals(1, store.purgeOrphanChunks(100), "only the recovered execution's chunk");
        assertEquals(0, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", died));
        assertEquals(1, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", running),
                "a running execution's chunks stay");
        assertEquals(0, store.purgeOrphanChunks(100), "the result's chunks are not orphans");

        var stored = store.storedResult(id).orElseThrow();
        assertThrows(IOException.class, () -> store.writeResult(
                new ExportResultStore.StoredResult(id, stored.executionId(), stored.size() + 1, stored.sha256()),
                new ByteArrayOutputStream()), "chunks ending early fail the download");

        assertEquals(0, store.purgeExpiredResults(T0.plus(Duration.ofHours(23)), 10), "not yet expired");
        assertEquals(1, store.purgeExpiredResults(T0.plus(Duration.ofHours(24)), 10));
        assertTrue(store.storedResult(id).isEmpty());
        assertNull(ledger.find(id).orElseThrow().resultBytes());
        assertEquals(0, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", id), "expiry drops the chunks");
        assertEquals(TaskStatus.COMPLETED, ledger.find(id).orElseThrow().status());
    }

    /**
     * Issue 16: the export hands a chunk over as a stream over its segments (never one array), with its
     * exact length: chunks of 300 KiB made of 256 KiB segments whose boundary cuts a UTF-8 character, and a
     * last chunk larger than a combined completion takes, are stored and served byte for byte.
     */
    @Test
    void chunksStreamedFromSegmentsAreStoredByteForByte() throws Exception {
        UUID id = insert(T0, T0);
        Lease lease = ledger.claim(id, 0, 0, T0).orElseThrow().lease();
        byte[] csv = "é中文🙂,\"x\"\r\n".repeat(30_000).getBytes(StandardCharsets.UTF_8); // 540 000 bytes, 2-4 per character
        int chunk = 300 * 1024;
        int segment = 256 * 1024;
        assertTrue(new String(csv, 0, segment, StandardCharsets.UTF_8).endsWith("\uFFFD"),
                "a segment boundary inside a character");
        store.writeResultChunk(lease, 0, segments(csv, 0, chunk, segment), chunk, T0);
        store.completeExport(lease, 1, segments(csv, chunk, csv.length, segment), csv.length - chunk, csv.length,
                sha256(new String(csv, StandardCharsets.UTF_8)), "s", T0.plus(Duration.ofHours(24)), T0.plusSeconds(1));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.writeResult(store.storedResult(id).orElseThrow(), out);
        assertArrayEquals(csv, out.toByteArray());
    }

    /** {@code b[from..to)} as a stream of separate arrays of at most {@code segment} bytes. */
    private static java.io.InputStream segments(byte[] b, int from, int to, int segment) {
        List<java.io.InputStream> parts = new java.util.ArrayList<>();
        for (int i = from; i < to; i += segment) {
            parts.add(in(java.util.Arrays.copyOfRange(b, i, Math.min(to, i + segment))));
        }
        return new java.io.SequenceInputStream(java.util.Collections.enumeration(parts));
    }

    private static java.io.InputStream in(byte[] b) {
        return new java.io.ByteArrayInputStream(b);
    }

    /**
     * Issue 16: an export of one chunk stores its whole result with its completion, one statement; a
     * completion whose lease was lost stores no chunk and deletes nothing, also when the takeover commits
     * while the completion waits for the row (PostgreSQL re-checks the lease on the new row version, and
     * the chunk INSERT reads the UPDATE's RETURNING, not the statement's snapshot).
     */
    @Test
    void aSmallExportStoresItsOnlyChunkWithItsCompletionAndALostLeaseStoresNone() throws Exception {
        UUID id = insert(T0, T0);
        Lease lease = ledger.claim(id, 0, 0, T0).orElseThrow().lease();
        byte[] csv = "\uFEFFid,title\r\n".getBytes(StandardCharsets.UTF_8);
        store.completeExport(lease, 0, in(csv), csv.length, csv.length, sha256("\uFEFFid,title\r\n"), "0 tickets exported",
                T0.plus(Duration.ofHours(24)), T0.plusSeconds(1));
        assertEquals("\uFEFFid,title\r\n", download(id));
        assertEquals(1, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ? AND execution_id = ? AND seq = 0",
                id, lease.executionId()), "one chunk, named by the completion");
        assertEquals(TaskStatus.COMPLETED, ledger.find(id).orElseThrow().status());

        UUID raced = insert(T0, T0);
        Lease loser = ledger.claim(raced, 0, 0, T0).orElseThrow().lease();
        byte[] old = "OLD\r\n".getBytes(StandardCharsets.UTF_8);
        store.writeResultChunk(loser, 0, in(old), old.length, T0);
        UUID winner = UUID.randomUUID();
        try (Connection takeover = sessions.getConnection()) {
            takeover.setAutoCommit(false);
            // A claim by another execution, not yet committed: it holds the row while the loser completes.
            try (PreparedStatement ps = takeover.prepareStatement("UPDATE background_task SET execution_id = ?,"
                    + " attempts = 2, progress = 0 WHERE id = ?")) {
                ps.setObject(1, winner);
                ps.setObject(2, raced);
                assertEquals(1, ps.executeUpdate());
            }
            var completion = java.util.concurrent.CompletableFuture.runAsync(() -> store.completeExport(loser, 1, in(csv),
                    csv.length, old.length + csv.length, sha256("OLD\r\n\uFEFFid,title\r\n"), "s",
                    T0.plus(Duration.ofHours(24)), T0.plusSeconds(2)));
            awaitBlockedOnALock(completion, "WITH done AS%");
            takeover.commit();
            var e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> completion.get(30, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof LeaseLost, e.toString());
        }
        assertEquals(1, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", raced),
                "no last chunk stored, the loser's earlier chunk left for its own cleanup or the sweep");
        BackgroundTask row = ledger.find(raced).orElseThrow();
        assertEquals(TaskStatus.RUNNING, row.status());
        assertEquals(winner, row.executionId());
        assertNull(row.resultDigest());
    }

    /**
     * One export's completion deletes the chunks an earlier execution of the task left (found through the
     * completed row, so its plan does not depend on the ids); a completion whose lease was lost deletes none.
     */
    @Test
    void aCompletionDeletesTheChunksOfEarlierExecutionsOnlyWhenItsLeaseHeld() throws SQLException, IOException {
        UUID id = insert(T0, T0);
        Lease first = ledger.claim(id, 0, 0, T0).orElseThrow().lease();
        byte[] old = "OLD\r\n".getBytes(StandardCharsets.UTF_8);
        store.writeResultChunk(first, 0, in(old), old.length, T0);
        Lease second = ledger.claim(id, 0, 1, T0.plusSeconds(1)).orElseThrow().lease();
        byte[] csv = "NEW\r\n".getBytes(StandardCharsets.UTF_8);
        assertThrows(LeaseLost.class, () -> store.completeExport(first, 0, in(csv), csv.length, csv.length,
                sha256("NEW\r\n"), "lost", T0, T0.plusSeconds(2)));
        assertEquals(1, count("SELECT count(*) FROM task_result_chunk WHERE execution_id = ?", first.executionId()),
                "a completion whose lease was lost deletes nothing");
        store.completeExport(second, 0, in(csv), csv.length, csv.length, sha256("NEW\r\n"), "1 row",
                T0.plus(Duration.ofHours(24)), T0.plusSeconds(3));
        assertEquals("NEW\r\n", download(id));
        assertEquals(0, count("SELECT count(*) FROM task_result_chunk WHERE execution_id = ?", first.executionId()),
                "the earlier execution's chunk went with the completion");
        assertEquals(1, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", id));
    }

    /**
     * Issue 16: export completions combined into one statement: each row completed under its own lease
     * with its own last chunk, size, digest and summary; a completion whose lease was lost stores no chunk
     * and leaves the row as it was; stale chunks of a completed task are deleted.
     */
    @Test
    void completeExportsCompletesEachRowUnderItsOwnLease() throws SQLException, IOException {
        UUID a = insert(T0, T0);
        UUID b = insert(T0, T0);
        UUID c = insert(T0, T0);
        Lease staleB = ledger.claim(b, 0, 0, T0).orElseThrow().lease();
        byte[] old = "OLD\r\n".getBytes(StandardCharsets.UTF_8);
        store.writeResultChunk(staleB, 0, in(old), old.length, T0);
        Lease la = ledger.claim(a, 0, 0, T0).orElseThrow().lease();
        Lease lb = ledger.claim(b, 0, 1, T0).orElseThrow().lease();
        Lease lost = ledger.claim(c, 0, 0, T0).orElseThrow().lease();
        ledger.claim(c, 0, 1, T0);
        BackgroundTask before = ledger.find(c).orElseThrow();
        byte[] csvA = "A\r\n".getBytes(StandardCharsets.UTF_8);
        byte[] head = "B1".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "B2\r\n".getBytes(StandardCharsets.UTF_8);
        store.writeResultChunk(lb, 0, in(head), head.length, T0);
        Instant now = T0.plusSeconds(9);
        Instant expires = now.plus(Duration.ofHours(24));
        List<Boolean> done = store.completeExports(List.of(
                new ExportResultStore.ExportCompletion(la, 0, csvA, csvA.length, csvA.length, sha256("A\r\n"), "1 a", expires, now),
                new ExportResultStore.ExportCompletion(lb, 1, tail, tail.length, 6, sha256("B1B2\r\n"), "2 b", expires, now),
                new ExportResultStore.ExportCompletion(lost, 0, old, old.length, old.length, sha256("OLD\r\n"), "x",
                        expires, now)));
        assertEquals(List.of(true, true, false), done);
        assertEquals("A\r\n", download(a));
        assertEquals("B1B2\r\n", download(b));
        assertEquals(sha256("B1B2\r\n"), ledger.find(b).orElseThrow().resultDigest());
        assertEquals("2 b", ledger.find(b).orElseThrow().resultSummary());
        assertEquals(now, ledger.find(a).orElseThrow().updatedAt());
        assertEquals(expires, ledger.find(a).orElseThrow().expiresAt());
        assertEquals(0, count("SELECT count(*) FROM task_result_chunk WHERE execution_id = ?", staleB.executionId()),
                "the stale execution's chunk went with the completion");
        assertEquals(0, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", c), "no chunk for a lost lease");
        assertEquals(before, ledger.find(c).orElseThrow(), "R8: nothing written to the row whose lease was lost");
        assertThrows(LeaseLost.class, () -> ledger.writeProgress(la, 10, now), "the lease ends with the run");
    }

    /**
     * Waits (bounded, to detect a sync point that never came) until a session running a statement that
     * starts like {@code queryPrefix} (a LIKE pattern) waits on a lock.
     */
    private static void awaitBlockedOnALock(java.util.concurrent.Future<?> blocked, String queryPrefix) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND wait_event_type = 'Lock' AND query LIKE ?", queryPrefix) == 0) {
            assertFalse(blocked.isDone(), "the statement ended without waiting for the row");
            assertTrue(System.nanoTime() < deadline, "the statement never waited for the row");
            Thread.onSpinWait();
        }
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private UUID insert(Instant runAt, Instant now) {
        UUID id = UUID.randomUUID();
        ledger.insert(id, TaskKind.of("EXPORT"), team, owner, TaskScope.TEAM, "{\"status\": [\"OPEN\"]}", runAt, now);
        return id;
    }

    private static String utcText(String column, UUID id) throws SQLException {
        try (Connection c = sessions.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT to_char(" + column + " AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') FROM background_task"
                        + " WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getString(1);
            }
        }
    }

    /**
     * Stores {@code text} as chunks of 2 bytes under the lease, all but the last one on their own, and
     * completes the export with the last one, as {@code ChunkedResult} does.
     */
    private void complete(Lease lease, String text, String summary, Instant expiresAt, Instant now) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int last = Math.max(0, (bytes.length - 1) / 2);
        for (int seq = 0; seq < last; seq++) {
            store.writeResultChunk(lease, seq, in(java.util.Arrays.copyOfRange(bytes, seq * 2, seq * 2 + 2)), 2, now);
        }
        byte[] tail = java.util.Arrays.copyOfRange(bytes, last * 2, bytes.length);
        store.completeExport(lease, last, in(tail), tail.length, bytes.length, sha256(text), summary, expiresAt, now);
    }

    private String download(UUID id) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.writeResult(store.storedResult(id).orElseThrow(), out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static long count(String sql, Object... args) throws SQLException {
        try (Connection c = sessions.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getLong(1);
            }
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Sessions in {@link #SESSION_ZONE}. A {@code -c TimeZone=} startup option is not enough: pgjdbc sends the
     * JVM's zone in its startup packet, which wins, so every connection sets the zone itself.
     */
    private static final class LosAngelesSessions extends PGSimpleDataSource {
        private static final long serialVersionUID = 1L;

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            Connection c = super.getConnection(user, password);
            try (Statement st = c.createStatement()) {
                st.execute("SET TIME ZONE '" + SESSION_ZONE + "'");
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            return c;
        }
    }

    /** Sessions as {@link #sessions}, recording into {@code sent} the text of every statement prepared on them. */
    private static PGSimpleDataSource recording(List<String> sent) {
        return new PGSimpleDataSource() {
            private static final long serialVersionUID = 1L;

            @Override
            public Connection getConnection() throws SQLException {
                Connection c = sessions.getConnection();
                return (Connection) Proxy.newProxyInstance(JdbcTaskLedgerTest.class.getClassLoader(),
                        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                            if (method.getName().equals("prepareStatement")) {
                                sent.add((String) args[0]);
                            }
                            try {
                                return method.invoke(c, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }
        };
    }

    /**
     * The generic plan of a statement as the ledger sends it ({@code ?} parameters), as JSON text:
     * PREPAREd with its parameters numbered and EXPLAINed with {@code plan_cache_mode = force_generic_plan}.
     */
    private static String genericPlan(String sql) throws SQLException {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            if (ch == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(ch);
            }
        }
        try (Connection c = sessions.getConnection(); Statement st = c.createStatement()) {
            st.execute("SET plan_cache_mode = force_generic_plan");
            st.execute("PREPARE lease_checked AS " + numbered);
            try (ResultSet rs = st.executeQuery("EXPLAIN (FORMAT JSON) EXECUTE lease_checked("
                    + String.join(", ", java.util.Collections.nCopies(n, "NULL")) + ")")) {
                assertTrue(rs.next());
                return rs.getString(1);
            } finally {
                st.execute("DEALLOCATE lease_checked");
            }
        }
    }

    /** A data source that hands out {@code c} every time and ignores close: the ledger's calls share one transaction. */
    private static PGSimpleDataSource oneConnection(Connection c) {
        Connection shared = (Connection) Proxy.newProxyInstance(JdbcTaskLedgerTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(c, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return new PGSimpleDataSource() {
            private static final long serialVersionUID = 1L;

            @Override
            public Connection getConnection() {
                return shared;
            }
        };
    }

    /** The reminder's completion (ReminderTransaction) through the ledger's named transition. */
    private static void completeReminder(JdbcTaskLedger on, Lease lease, Instant now) {
        on.complete(lease, "reminder completion", now);
    }

    private static void exec(String sql, Object... args) throws SQLException {
        try (Connection c = sessions.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.execute();
        }
    }

    /** The runs of a dispatch batch, without the team and kind it also reads (issue 30). */
    private static List<TaskJobId> jobs(List<Dispatch> batch) {
        return batch.stream().map(Dispatch::job).toList();
    }
}
