package com.teamdesk.tasks.it.export;

import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.queue.AddResult;
import com.teamdesk.tasks.queue.JobRecord;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.task.spi.TaskJobId;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The export end to end (R13, issue 3) from a client's side: the real API, PostgreSQL, Redis
 * queue, the production worker inside the server and its EJB timers. A small batch size (7)
 * makes every export read several keyset batches and write progress after each.
 *
 * <p>The CSV is checked against an oracle computed here from the tickets the test wrote (never
 * from the application's own filter code): exact rows in keyset order, RFC 4180 quoting of commas,
 * quotes and CR/LF, Chinese text and emoji, formula neutralisation, time zones with DST.
 *
 * <p>The worker runs with concurrency 1, so a test can hold the only processing slot (a job whose
 * claim waits on a test-held row lock, {@link RowLock}) and know for certain that a job queued
 * behind it has not run yet: that makes "demoted before it runs" deterministic.
 */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
@RunAsClient
class ExportEndToEndIT {
    /** This deployment's Redis prefix (also set in its config), so the test can read its queue. */
    static final String PREFIX = "it-e2e-" + UUID.randomUUID().toString().substring(0, 8);
    private static final Duration TASK_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(60);
    private static final String HEADER = "id,title,status,priority,assignee,requester,created_at,updated_at,version,body";
    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static ClientQueue clientQueue;
    /** Small result chunks, so that every export is stored as several (issue 16). */
    private static final int CHUNK_BYTES = 256;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return TestDeployments.app(Map.of(
                "teamdesk.redis.prefix", PREFIX,
                "teamdesk.export.batch-size", "7",
                "teamdesk.export.chunk-bytes", String.valueOf(CHUNK_BYTES),
                "teamdesk.worker.concurrency", "1"));
    }

    @ArquillianResource
    URL url;

    final TestData data = TestData.fromEnvironment();
    Api api;
    TestTeam t;
    /** username by user id, for the expected assignee/requester cells */
    final Map<UUID, String> usernames = new HashMap<>();

    @BeforeEach
    void setUp() {
        api = Api.at(url);
        t = data.newTeam();
        for (UUID u : List.of(t.owner(), t.staff(), t.customer(), t.outsider())) {
            usernames.put(u, (String) data.value("SELECT username FROM app_user WHERE id = ?", u));
        }
    }

    @AfterAll
    static void closeQueue() {
        if (clientQueue != null) {
            clientQueue.close();
        }
    }

    private static synchronized ClientQueue queue() {
        if (clientQueue == null) {
            clientQueue = new ClientQueue(PREFIX);
        }
        return clientQueue;
    }

    // ------------------------------------------------------------------------------------------
    // The CSV: filters, content, quoting, neutralisation, time zones
    // ------------------------------------------------------------------------------------------

    /**
     * A TEAM export with every filter (status list, assignee, a date range in Asia/Shanghai, text)
     * holds exactly the matching tickets. Each near miss differs from a match in one dimension
     * only; the date bounds sit on the first and last microsecond of the days in +08:00, with
     * tickets that a UTC-day reading would classify the other way.
     */
    @Test
    void filteredTeamExportInShanghaiHoldsExactlyTheMatchingTickets() {
        List<Row> match = new ArrayList<>();
        // first instant of 2026-03-09 in Shanghai (still 2026-03-08 in UTC); q matches the title, case-insensitively
        match.add(ticket("Find the NEEDLE", "no match here", "OPEN", "HIGH", t.staff(), t.customer(),
                "2026-03-08T16:00:00Z", "2026-03-08T16:00:00.999999Z", 3));
        // formula-like title that matches q, with quotes and a comma
        match.add(ticket("=HYPERLINK(\"http://x.test/needle\", \"click\")", "body, with \"quotes\"", "OPEN", "URGENT",
                t.staff(), t.owner(), "2026-03-09T12:00:00Z", "2026-03-12T01:02:03.456Z", 1));
        // last microsecond of 2026-03-10 in Shanghai; q matches the body only
        match.add(ticket("Pending one", "hidden nEeDlE in the body", "PENDING", "LOW", t.staff(), t.customer(),
                "2026-03-10T15:59:59.999999Z", "2026-03-10T15:59:59.999999Z", 2));
        // near misses
        ticket("needle but closed", "", "CLOSED", "NORMAL", t.staff(), t.customer(), "2026-03-09T01:00:00Z",
                "2026-03-09T01:00:00Z", 1);
        ticket("needle of another assignee", "", "OPEN", "NORMAL", t.owner(), t.customer(), "2026-03-09T02:00:00Z",
                "2026-03-09T02:00:00Z", 1);
        ticket("needle unassigned", "", "OPEN", "NORMAL", null, t.customer(), "2026-03-09T03:00:00Z",
                "2026-03-09T03:00:00Z", 1);
        ticket("needle just before the day", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-03-08T15:59:59.999999Z",
                "2026-03-08T15:59:59.999999Z", 1);
        ticket("needle at the exclusive end", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-03-10T16:00:00Z",
                "2026-03-10T16:00:00Z", 1);
        ticket("needle on 2026-03-10 in UTC, 03-11 in Shanghai", "", "OPEN", "NORMAL", t.staff(), t.customer(),
                "2026-03-10T17:00:00Z", "2026-03-10T17:00:00Z", 1);
        ticket("nothing to find", "nothing either", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-03-09T04:00:00Z",
                "2026-03-09T04:00:00Z", 1);

        JsonObjectBuilder filters = Json.createObjectBuilder()
                .add("status", Json.createArrayBuilder().add("OPEN").add("pending"))
                .add("assigneeId", t.staff().toString())
                .add("createdFrom", "2026-03-09")
                .add("createdTo", "2026-03-10")
                .add("q", "needle");
        Export export = runExport(Tokens.of(t.staff()), "TEAM", filters, "Asia/Shanghai");
        List<List<String>> rows = export.records();
        assertEquals(expected(match, SHANGHAI), rows, "exactly the matching tickets, in (created_at, id) order");
        assertEquals("3 tickets exported", export.done().getString("resultSummary"));

        // Literal cells, not only the oracle's formatting.
        assertEquals("2026-03-09T00:00:00+08:00", rows.get(0).get(6), "created_at in +08:00");
        assertEquals("2026-03-09T00:00:00+08:00", rows.get(0).get(7), "fractions of a second are cut, not rounded");
        assertEquals("2026-03-10T23:59:59+08:00", rows.get(2).get(6));
        assertEquals("'=HYPERLINK(\"http://x.test/needle\", \"click\")", rows.get(1).get(1), "formula neutralised");
        assertEquals("3", rows.get(0).get(8), "version is a plain number");
        assertTrue(export.text().contains("\"'=HYPERLINK(\"\"http://x.test/needle\"\", \"\"click\"\")\""),
                "RFC 4180: the cell is quoted and its quotes doubled");
    }

    /**
     * A TEAM export without filters, in America/New_York, of tickets built to break a CSV writer:
     * commas, quotes, CR, LF and CRLF inside cells, Chinese text, emoji (surrogate pairs, a ZWJ
     * sequence), every formula-like first character in titles, bodies and usernames, an empty body,
     * timestamps on both DST changes of 2026, and several tickets with the same created_at across a
     * batch boundary (the keyset's id tie-break).
     */
    @Test
    void unfilteredExportInNewYorkRoundTripsEveryCellAndTheDstOffsets() {
        UUID eqUser = data.user("=cmd|' /C calc'!A0-" + t.slug());
        UUID atUser = data.user("@admin-" + t.slug());
        data.member(t.id(), eqUser, "CUSTOMER");
        data.member(t.id(), atUser, "STAFF");
        usernames.put(eqUser, "=cmd|' /C calc'!A0-" + t.slug());
        usernames.put(atUser, "@admin-" + t.slug());

        List<Row> all = new ArrayList<>();
        all.add(ticket("Comma, \"quoted\", and more", "Line 1\r\nLine 2\nLine 3\rEnd", "OPEN", "NORMAL", t.staff(),
                t.customer(), "2026-01-15T12:00:00Z", "2026-01-15T12:00:00Z", 1));
        all.add(ticket("打印机坏了 🔥🖨️", "请尽快处理，谢谢！😀 👍🏽 👨‍👩‍👧 «ünïcödé»", "PENDING", "HIGH", atUser, eqUser,
                "2026-02-01T00:00:00Z", "2026-02-01T00:00:00Z", 7));
        all.add(ticket("=1+2", "=IMPORTXML(\"http://evil.test\", \"//a\")", "OPEN", "URGENT", t.staff(), t.customer(),
                "2026-02-02T00:00:00Z", "2026-02-02T00:00:00Z", 2));
        all.add(ticket("+SUM(A1:A9)", "+body", "CLOSED", "LOW", null, t.owner(), "2026-02-03T00:00:00Z",
                "2026-02-03T00:00:00Z", 42));
        all.add(ticket("-2+3", "-body", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-02-04T00:00:00Z",
                "2026-02-04T00:00:00Z", 1));
        all.add(ticket("@SUM(1)", "@body", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-02-05T00:00:00Z",
                "2026-02-05T00:00:00Z", 1));
        all.add(ticket("\tTabbed", "\tbody", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-02-06T00:00:00Z",
                "2026-02-06T00:00:00Z", 1));
        all.add(ticket("\rCarriage return first", "\r\nbody after a line break", "OPEN", "NORMAL", t.staff(),
                t.customer(), "2026-02-07T00:00:00Z", "2026-02-07T00:00:00Z", 1));
        all.add(ticket("'already quoted", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-02-08T00:00:00Z",
                "2026-02-08T00:00:00Z", 1));
        all.add(ticket("a = b is not a formula", "1+1", "OPEN", "NORMAL", t.staff(), t.customer(),
                "2026-02-09T00:00:00Z", "2026-02-09T00:00:00Z", 1));
        // Five tickets with one created_at: batches of 7 cut through them (rows 11-15).
        for (int i = 0; i < 5; i++) {
            all.add(ticket("Same instant " + i, "tie " + i, "OPEN", "NORMAL", t.staff(), t.customer(),
                    "2026-02-10T10:00:00.123456Z", "2026-02-10T10:00:00.123456Z", 1));
        }
        // DST in New York: 2026-03-08 02:00 EST -> 03:00 EDT; 2026-11-01 02:00 EDT -> 01:00 EST.
        all.add(ticket("Before spring forward", "", "OPEN", "NORMAL", t.staff(), t.customer(),
                "2026-03-08T06:59:59Z", "2026-03-08T06:59:59Z", 1));
        all.add(ticket("After spring forward", "", "OPEN", "NORMAL", t.staff(), t.customer(),
                "2026-03-08T07:00:00Z", "2026-03-08T07:00:00Z", 1));
        all.add(ticket("First 01:30 in November", "", "OPEN", "NORMAL", t.staff(), t.customer(),
                "2026-11-01T05:30:00Z", "2026-11-01T05:30:00Z", 1));
        all.add(ticket("Second 01:30 in November", "", "OPEN", "NORMAL", t.staff(), t.customer(),
                "2026-11-01T06:30:00Z", "2026-11-01T06:30:00.5Z", 1));

        Export export = runExport(Tokens.of(t.owner()), "TEAM", null, "America/New_York");
        List<List<String>> rows = export.records();
        assertEquals(expected(all, NEW_YORK), rows, "every ticket of the team, every cell round-tripped");
        assertEquals(all.size() + " tickets exported", export.done().getString("resultSummary"));

        Map<String, List<String>> byTitleStart = new HashMap<>();
        rows.forEach(r -> byTitleStart.put(r.get(1), r));
        // Literal expectations: neutralised text cells, numbers untouched, offsets by DST.
        assertEquals("Line 1\r\nLine 2\nLine 3\rEnd", byTitleStart.get("Comma, \"quoted\", and more").get(9));
        List<String> chinese = byTitleStart.get("打印机坏了 🔥🖨️");
        assertEquals("请尽快处理，谢谢！😀 👍🏽 👨‍👩‍👧 «ünïcödé»", chinese.get(9));
        assertEquals("'@admin-" + t.slug(), chinese.get(4), "a username is a text cell too");
        assertEquals("'=cmd|' /C calc'!A0-" + t.slug(), chinese.get(5));
        assertEquals("7", chinese.get(8));
        assertEquals("'=IMPORTXML(\"http://evil.test\", \"//a\")", byTitleStart.get("'=1+2").get(9));
        assertEquals("42", byTitleStart.get("'+SUM(A1:A9)").get(8), "numeric version untouched");
        assertEquals("", byTitleStart.get("'+SUM(A1:A9)").get(4), "no assignee: empty cell");
        assertEquals("'-body", byTitleStart.get("'-2+3").get(9));
        assertEquals("'@body", byTitleStart.get("'@SUM(1)").get(9));
        assertEquals("'\tbody", byTitleStart.get("'\tTabbed").get(9));
        assertEquals("'\r\nbody after a line break", byTitleStart.get("'\rCarriage return first").get(9));
        assertEquals("", byTitleStart.get("'already quoted").get(9), "empty body");
        assertEquals("1+1", byTitleStart.get("a = b is not a formula").get(9), "only the first character counts");
        assertEquals("2026-03-08T01:59:59-05:00", byTitleStart.get("Before spring forward").get(6));
        assertEquals("2026-03-08T03:00:00-04:00", byTitleStart.get("After spring forward").get(6));
        assertEquals("2026-11-01T01:30:00-04:00", byTitleStart.get("First 01:30 in November").get(6));
        assertEquals("2026-11-01T01:30:00-05:00", byTitleStart.get("Second 01:30 in November").get(6));
        assertEquals("2026-11-01T01:30:00-05:00", byTitleStart.get("Second 01:30 in November").get(7));
        assertEquals("2026-01-15T07:00:00-05:00", byTitleStart.get("Comma, \"quoted\", and more").get(6));

        // Raw RFC 4180 text: CRLF record separator, quoted cells with doubled quotes and line breaks.
        String text = export.text();
        assertTrue(text.contains("\"Comma, \"\"quoted\"\", and more\",OPEN,NORMAL,"), "quoted and doubled");
        assertTrue(text.contains(",\"Line 1\r\nLine 2\nLine 3\rEnd\"\r\n"), "line breaks kept inside a quoted cell");
        assertEquals(all.size(), export.records().size());
    }

    /**
     * With no time zone the export is in UTC ({@code Z}), and the text filter treats {@code %},
     * {@code _} and {@code \} as themselves: tickets that an unescaped LIKE pattern would match
     * stay out.
     */
    @Test
    void defaultZoneIsUtcAndTheTextFilterHasNoWildcards() {
        List<Row> match = new ArrayList<>();
        match.add(ticket("Save 50%_off now", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-04-01T10:00:00Z",
                "2026-04-01T10:00:00Z", 1));
        match.add(ticket("Prices", "SAVE 50%_OFF today", "OPEN", "NORMAL", null, t.customer(), "2026-04-02T10:00:00Z",
                "2026-04-02T10:00:00Z", 1));
        ticket("Save 50Y_off now", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-04-03T10:00:00Z",
                "2026-04-03T10:00:00Z", 1);
        ticket("Save 50%Xoff now", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-04-04T10:00:00Z",
                "2026-04-04T10:00:00Z", 1);
        ticket("Save 50 percent off", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-04-05T10:00:00Z",
                "2026-04-05T10:00:00Z", 1);
        Export export = runExport(Tokens.of(t.staff()), "TEAM",
                Json.createObjectBuilder().add("q", "50%_off"), null);
        assertEquals(expected(match, ZoneOffset.UTC), export.records());
        assertEquals("2026-04-01T10:00:00Z", export.records().get(0).get(6), "UTC, with its offset");

        List<Row> path = List.of(ticket("Path C:\\temp\\x", "", "OPEN", "NORMAL", t.staff(), t.customer(),
                "2026-04-06T10:00:00Z", "2026-04-06T10:00:00Z", 1));
        ticket("Path C:temp", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-04-07T10:00:00Z",
                "2026-04-07T10:00:00Z", 1);
        Export backslash = runExport(Tokens.of(t.staff()), "TEAM",
                Json.createObjectBuilder().add("q", "c:\\temp"), null);
        assertEquals(expected(path, ZoneOffset.UTC), backslash.records(), "a backslash is a literal character");
    }

    // ------------------------------------------------------------------------------------------
    // Scope and role: at creation and at execution
    // ------------------------------------------------------------------------------------------

    /**
     * At creation: a customer may not ask for a TEAM export (403 {@code task.scope_forbidden},
     * nothing created); a SELF export holds exactly the tickets its owner requested or is
     * assigned to, whatever the owner's role.
     */
    @Test
    void scopeAtCreationAndWhatASelfExportHolds() {
        Reply refused = api.post(tasks(), Tokens.of(t.customer()),
                "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\",\"timeZone\":\"Asia/Shanghai\"}");
        assertProblem(refused, 403, "task.scope_forbidden");
        assertEquals(0L, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()),
                "a refused request creates nothing");

        Row requestedByCustomer = ticket("Customer asked", "", "OPEN", "NORMAL", t.staff(), t.customer(),
                "2026-05-01T00:00:00Z", "2026-05-01T00:00:00Z", 1);
        Row assignedToCustomer = ticket("Assigned to the customer (demoted staff)", "", "PENDING", "NORMAL",
                t.customer(), t.owner(), "2026-05-02T00:00:00Z", "2026-05-02T00:00:00Z", 1);
        Row ownersOwn = ticket("Owner's own", "", "OPEN", "NORMAL", null, t.owner(), "2026-05-03T00:00:00Z",
                "2026-05-03T00:00:00Z", 1);
        Row staffAssigned = ticket("Staff's work", "", "OPEN", "NORMAL", t.staff(), t.owner(), "2026-05-04T00:00:00Z",
                "2026-05-04T00:00:00Z", 1);
        Row closedByCustomer = ticket("Customer's closed one", "", "CLOSED", "NORMAL", null, t.customer(),
                "2026-05-05T00:00:00Z", "2026-05-05T00:00:00Z", 1);

        Export customers = runExport(Tokens.of(t.customer()), "SELF", null, "Asia/Shanghai");
        assertEquals(expected(List.of(requestedByCustomer, assignedToCustomer, closedByCustomer), SHANGHAI),
                customers.records(), "requested by or assigned to the customer, nothing else");
        Export customersOpen = runExport(Tokens.of(t.customer()), "SELF",
                Json.createObjectBuilder().add("status", Json.createArrayBuilder().add("OPEN")), "UTC");
        assertEquals(expected(List.of(requestedByCustomer), ZoneOffset.UTC), customersOpen.records(),
                "SELF and the filters both apply");
        Export staffSelf = runExport(Tokens.of(t.staff()), "SELF", null, null);
        assertEquals(expected(List.of(requestedByCustomer, staffAssigned), ZoneOffset.UTC), staffSelf.records(),
                "SELF is the owner's own tickets even for staff");
        Export ownerSelf = runExport(Tokens.of(t.owner()), "SELF", null, null);
        assertEquals(expected(List.of(assignedToCustomer, ownersOwn, staffAssigned), ZoneOffset.UTC),
                ownerSelf.records());
        Export team = runExport(Tokens.of(t.staff()), "TEAM", null, null);
        assertEquals(5, team.records().size(), "TEAM: all five");
        assertEquals("SELF", customers.done().getString("scope"));
    }

    /**
     * At execution: a TEAM export whose owner is demoted to CUSTOMER before it runs, and a SELF
     * export whose owner left the team, are rejected by the worker with PERMISSION_LOST (final at
     * once, the queue record exhausted, no CSV), and retry does not restore the permission.
     *
     * <p>"Before it runs" is made certain, not likely: the worker has one slot, and the test first
     * fills it with a blocker job whose claim waits on a test-held row lock. The two exports are
     * then created through the API (dispatched at once, R18) and stay WAITING in the queue behind
     * the blocker; only after the role changes is the blocker released.
     */
    @Test
    void ownerDemotedOrRemovedBeforeTheRunIsRejectedAtExecution() throws Exception {
        ticket("Some ticket", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-06-01T00:00:00Z",
                "2026-06-01T00:00:00Z", 1);
        TestTeam blockerTeam = data.newTeam();
        UUID blocker = dispatchedTaskRow(blockerTeam.id(), blockerTeam.owner(), "TEAM");
        UUID teamExport;
        UUID selfExport;
        try (RowLock lock = RowLock.on(data::connection, blocker)) {
            assertEquals(AddResult.ADDED, queue().addTaskJob(blocker, 0));
            lock.awaitBlocked(RowLock.CLAIM, SYNC_TIMEOUT); // the worker's only slot is now busy

            Reply a = api.post(tasks(), Tokens.of(t.staff()), "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}");
            assertEquals(202, a.status(), a.toString());
            teamExport = UUID.fromString(a.json().getString("id"));
            Reply b = api.post(tasks(), Tokens.of(t.customer()), "{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}");
            assertEquals(202, b.status(), b.toString());
            selfExport = UUID.fromString(b.json().getString("id"));
            for (UUID id : List.of(teamExport, selfExport)) {
                JobRecord job = job(id, 0);
                assertEquals(JobState.WAITING, job.state(), "dispatched at creation and waiting behind the blocker");
                assertEquals(0, job.attemptsStarted());
                assertEquals("WAITING", data.value("SELECT status FROM background_task WHERE id = ?", id));
            }
            data.member(t.id(), t.staff(), "CUSTOMER");
            assertEquals(1, data.exec("DELETE FROM membership WHERE team_id = ? AND user_id = ?", t.id(), t.customer()));
            assertEquals(JobState.WAITING, job(teamExport, 0).state(), "still not taken when the roles changed");
        }
        String owner = Tokens.of(t.owner());
        for (UUID id : List.of(teamExport, selfExport)) {
            JsonObject failed = await(id, owner, "FAILED");
            assertEquals("Rejected: you no longer have permission for this task's scope.", failed.getString("lastError"));
            assertEquals(1, failed.getInt("attempts"), "rejected at once, no automatic retry (R11)");
            assertEquals(JsonValue.NULL, failed.get("resultSummary"));
            assertEquals(JsonValue.NULL, failed.get("expiresAt"));
            assertFalse(failed.getJsonObject("links").containsKey("result"));
            JobRecord job = awaitJob(id, JobState.FAILED); // the ledger is written first, then the queue
            assertTrue(job.exhausted(), "an unrecoverable error ends the job in the queue");
            assertEquals(1, job.attemptsMade());
            assertEquals(0L, data.count("SELECT count(*) FROM background_task WHERE id = ? AND result_sha256 IS NOT NULL", id));
            assertEquals(0L, data.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", id), "no chunk left");
            assertProblem(api.get("tasks/" + id + "/result", owner), 409, "task.not_completed");
            assertProblem(api.post("tasks/" + id + "/retry", owner, null), 403, "task.permission_lost");
        }
        assertEquals("COMPLETED", await(blocker, Tokens.of(blockerTeam.owner()), "COMPLETED").getString("status"),
                "the blocker itself ran normally once released");
    }

    // ------------------------------------------------------------------------------------------
    // Expiry (R13) and reads after conditional updates (no stale shared cache)
    // ------------------------------------------------------------------------------------------

    /**
     * An export whose 24 h are over answers 410 {@code export.expired} (not an empty file), while
     * the task itself stays readable. Time passes by moving {@code expires_at} into the past.
     * (The purge itself is proved in-server, in SweepsIT, by calling the timer's body.)
     */
    @Test
    void expiredExportAnswers410() {
        ticket("Soon gone", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-06-02T00:00:00Z",
                "2026-06-02T00:00:00Z", 1);
        Export export = runExport(Tokens.of(t.staff()), "TEAM", null, null);
        Instant expiresAt = OffsetDateTime.parse(export.done().getString("expiresAt")).toInstant();
        Instant updatedAt = OffsetDateTime.parse(export.done().getString("updatedAt")).toInstant();
        assertEquals(Duration.ofHours(24), Duration.between(updatedAt, expiresAt), "kept 24 h from completion");

        assertEquals(1, data.exec("UPDATE background_task SET expires_at = now() - interval '1 second'"
                + " WHERE id = ? AND status = 'COMPLETED'", export.id()));
        Reply gone = api.get("tasks/" + export.id() + "/result", Tokens.of(t.staff()));
        assertProblem(gone, 410, "export.expired");
        JsonObject task = api.get("tasks/" + export.id(), Tokens.of(t.staff())).json();
        assertEquals("COMPLETED", task.getString("status"));
        assertEquals("1 ticket exported", task.getString("resultSummary"));
    }

    /**
     * EclipseLink's shared cache is off: state changed by a conditional UPDATE outside JPA — a
     * direct SQL write, or the reminder's version bump in the worker — is what the next request
     * reads (GET ticket, If-Match, GET task, the result's file name from the team entity, /me).
     * Each first read below would have put the entity into a shared cache.
     */
    @Test
    void aReadInANewRequestSeesEveryConditionalUpdate() {
        String staff = Tokens.of(t.staff());
        Row r = ticket("Original title", "", "OPEN", "NORMAL", t.staff(), t.customer(), "2026-06-03T00:00:00Z",
                "2026-06-03T00:00:00Z", 1);
        String path = "teams/" + t.id() + "/tickets/" + r.id();
        assertEquals("Original title", api.get(path, staff).json().getString("title"));

        assertEquals(1, data.exec("UPDATE ticket SET title = 'Renamed behind JPA', version = version + 1"
                + " WHERE id = ? AND version = 1", r.id()));
        Reply after = api.get(path, staff);
        assertEquals("Renamed behind JPA", after.json().getString("title"));
        assertEquals(2, after.json().getInt("version"));
        assertEquals("\"2\"", after.header("ETag"));
        assertProblem(api.patch(path, staff, "\"1\"", "{\"status\":\"PENDING\"}"), 412, "ticket.version_mismatch");

        // The reminder's version bump (a native UPDATE in the worker's JTA transaction).
        Reply reminder = api.post(tasks(), staff,
                "{\"kind\":\"REMINDER\",\"ticketId\":\"" + r.id() + "\",\"message\":\"Look again\"}");
        assertEquals(202, reminder.status(), reminder.toString());
        await(UUID.fromString(reminder.json().getString("id")), staff, "COMPLETED");
        Reply bumped = api.get(path, staff);
        assertEquals(3, bumped.json().getInt("version"), "the worker's bump is visible to the next request");
        Reply patched = api.patch(path, staff, "\"3\"", "{\"status\":\"PENDING\"}");
        assertEquals(200, patched.status(), patched.toString());
        assertEquals(4, patched.json().getInt("version"));

        // A task read after a conditional ledger write; the file name after a team rename.
        Export export = runExport(staff, "TEAM", null, null);
        assertEquals(1, data.exec("UPDATE background_task SET result_summary = 'changed by SQL', updated_at = now()"
                + " WHERE id = ? AND status = 'COMPLETED'", export.id()));
        assertEquals("changed by SQL", api.get("tasks/" + export.id(), staff).json().getString("resultSummary"));
        assertTrue(api.get("tasks/" + export.id() + "/result", staff).header("Content-Disposition")
                .contains("teamdesk-export-" + t.slug() + "-"));
        assertEquals(t.name(), teamNameOfMe(staff));
        assertEquals(1, data.exec("UPDATE team SET slug = ?, name = ? WHERE id = ? AND slug = ?", "renamed-" + t.slug(),
                "Renamed " + t.name(), t.id(), t.slug()));
        assertTrue(api.get("tasks/" + export.id() + "/result", staff).header("Content-Disposition")
                .contains("teamdesk-export-renamed-" + t.slug() + "-"), "Team entity read fresh");
        assertEquals("Renamed " + t.name(), teamNameOfMe(staff));
    }

    private String teamNameOfMe(String token) {
        Reply me = api.get("me", token);
        assertEquals(200, me.status(), me.toString());
        return me.json().getJsonArray("memberships").stream().map(JsonValue::asJsonObject)
                .filter(m -> m.getString("teamId").equals(t.id().toString())).findFirst().orElseThrow()
                .getString("teamName");
    }

    // ------------------------------------------------------------------------------------------
    // helpers
    // ------------------------------------------------------------------------------------------

    /** A ticket as written (times exact). */
    record Row(UUID id, String title, String body, String status, String priority, UUID assignee, UUID requester,
            Instant createdAt, Instant updatedAt, int version) {
    }

    /** A finished export: its task body, raw CSV text (after the BOM) and parsed records. */
    record Export(UUID id, JsonObject done, String text, List<List<String>> records) {
    }

    private Row ticket(String title, String body, String status, String priority, UUID assignee, UUID requester,
            String createdAt, String updatedAt, int version) {
        Row r = new Row(UUID.randomUUID(), title, body, status, priority, assignee, requester, Instant.parse(createdAt),
                Instant.parse(updatedAt), version);
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", r.id(), t.id(), title, body, status,
                priority, assignee, requester, utc(r.createdAt()), utc(r.updatedAt()), version);
        return r;
    }

    /** The oracle: the CSV records the spec demands for these tickets, in keyset order. */
    private List<List<String>> expected(List<Row> rows, ZoneId zone) {
        DateTimeFormatter f = DateTimeFormatter.ISO_OFFSET_DATE_TIME.withZone(zone);
        // PostgreSQL orders uuid bytewise (unsigned) = the order of the canonical lower-case strings.
        return rows.stream().sorted(Comparator.comparing(Row::createdAt).thenComparing(r -> r.id().toString()))
                .map(r -> List.of(r.id().toString(), neutral(r.title()), r.status(), r.priority(),
                        r.assignee() == null ? "" : neutral(usernames.get(r.assignee())),
                        neutral(usernames.get(r.requester())),
                        f.format(r.createdAt().truncatedTo(ChronoUnit.SECONDS)),
                        f.format(r.updatedAt().truncatedTo(ChronoUnit.SECONDS)), Integer.toString(r.version()),
                        neutral(r.body())))
                .toList();
    }

    private static String neutral(String s) {
        return s.isEmpty() || "=+-@\t\r".indexOf(s.charAt(0)) < 0 ? s : "'" + s;
    }

    /** Creates an export through the API, waits for COMPLETED and downloads and parses its CSV. */
    private Export runExport(String token, String scope, JsonObjectBuilder filters, String timeZone) {
        JsonObjectBuilder body = Json.createObjectBuilder().add("kind", "EXPORT").add("scope", scope);
        if (filters != null) {
            body.add("filters", filters);
        }
        if (timeZone != null) {
            body.add("timeZone", timeZone);
        }
        Reply created = api.post(tasks(), token, body.build().toString());
        assertEquals(202, created.status(), created.toString());
        UUID id = UUID.fromString(created.json().getString("id"));
        assertEquals("EXPORT", created.json().getString("kind"), "accepted (the body may already show RUNNING)");
        JsonObject done = await(id, token, "COMPLETED");
        assertEquals(100, done.getInt("progress"));
        assertNotNull(done.getString("expiresAt"));
        assertEquals(JsonValue.NULL, done.get("lastError"));
        assertEquals(1, done.getInt("attempts"));
        // R12: the ledger commits COMPLETED first, then the worker tells the queue.
        JobRecord job = awaitJob(id, JobState.COMPLETED);
        assertEquals(100, job.progress(), "progress 100 reported to the queue");
        assertEquals(1, job.attemptsMade(), "one execution, the completing one (counted like BullMQ 5+)");
        assertEquals(1, job.attemptsStarted());

        Reply csv = api.get("tasks/" + id + "/result", token);
        assertEquals(200, csv.status(), csv.toString());
        assertEquals("text/csv;charset=UTF-8", csv.header("Content-Type").replace(" ", ""));
        String disposition = csv.header("Content-Disposition");
        assertTrue(Pattern.matches("attachment; filename=\"teamdesk-export-[A-Za-z0-9._-]+-\\d{8}-\\d{4}-[0-9a-f-]{36}\\.csv\"",
                disposition), disposition);
        byte[] bytes = csv.bytes();
        // Issue 16: the CSV is stored in chunks while the export runs and the download streams them in order.
        assertEquals(String.valueOf(bytes.length), csv.header("Content-Length"), "the exact size is announced");
        assertEquals(data.value("SELECT result_sha256 FROM background_task WHERE id = ?", id), sha256(bytes),
                "the download is exactly the bytes the export hashed while storing them");
        assertEquals((bytes.length + CHUNK_BYTES - 1) / CHUNK_BYTES,
                data.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", id), "full chunks, in order");
        assertTrue(bytes.length >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB
                && (bytes[2] & 0xFF) == 0xBF, "UTF-8 byte-order mark first");
        String text = new String(bytes, 3, bytes.length - 3, StandardCharsets.UTF_8);
        assertFalse(text.startsWith("\uFEFF"), "one BOM only");
        assertTrue(text.startsWith(HEADER + "\r\n"), "header row exactly, CRLF: " + text.substring(0,
                Math.min(120, text.length())));
        assertTrue(text.isEmpty() || text.endsWith("\r\n"), "every record ends with CRLF");
        List<List<String>> records = new ArrayList<>();
        try (CSVParser parser = CSVParser.parse(text, CSVFormat.RFC4180)) {
            List<CSVRecord> all = parser.getRecords();
            assertEquals(Arrays.asList(HEADER.split(",")), all.get(0).toList());
            for (CSVRecord r : all.subList(1, all.size())) {
                assertEquals(10, r.size(), "ten cells in record " + r.getRecordNumber());
                records.add(r.toList());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertEquals(done.getString("resultSummary"),
                records.size() == 1 ? "1 ticket exported" : records.size() + " tickets exported",
                "the summary says the row count");
        return new Export(id, done, text, records);
    }

    private JobRecord job(UUID taskId, int run) {
        return queue().queue().getJob(TaskJobId.of(taskId, run).toString())
                .orElseThrow(() -> new AssertionError("no queue job " + taskId + "-" + run));
    }

    /** Polls the queue record of run 0 until {@code state} (bounded; detects completion, orders nothing). */
    private JobRecord awaitJob(UUID taskId, JobState state) {
        Instant deadline = Instant.now().plus(SYNC_TIMEOUT);
        JobRecord last = null;
        while (Instant.now().isBefore(deadline)) {
            last = job(taskId, 0);
            if (last.state() == state) {
                return last;
            }
            sleep(20);
        }
        throw new AssertionError("queue job " + taskId + "-0 never became " + state + "; last: " + last);
    }

    /**
     * Polls GET /tasks/{id} until {@code status} (bounded; detects completion, orders nothing).
     * Progress seen on the way never goes down within one execution and stays within 0-100.
     */
    private JsonObject await(UUID taskId, String token, String status) {
        Instant deadline = Instant.now().plus(TASK_TIMEOUT);
        JsonObject last = null;
        Set<Integer> seen = new LinkedHashSet<>();
        int max = 0;
        while (Instant.now().isBefore(deadline)) {
            Reply r = api.get("tasks/" + taskId, token);
            assertEquals(200, r.status(), r.toString());
            last = r.json();
            int p = last.getInt("progress");
            assertTrue(p >= 0 && p <= 100, "progress " + p);
            if ("RUNNING".equals(last.getString("status"))) {
                assertTrue(p >= max, "progress of one execution does not go down: " + seen + " then " + p);
                max = p;
            }
            seen.add(p);
            if (status.equals(last.getString("status"))) {
                return last;
            }
            Predicate<String> terminal = s -> s.equals("COMPLETED") || s.equals("FAILED");
            assertFalse(terminal.test(last.getString("status")), "task ended " + last + ", expected " + status);
            sleep(100);
        }
        throw new AssertionError("task " + taskId + " never became " + status + " within " + TASK_TIMEOUT + "; last: " + last);
    }

    /** A WAITING task row already marked dispatched (so no dispatcher touches it), due now. */
    private UUID dispatchedTaskRow(UUID team, UUID owner, String scope) {
        UUID id = UUID.randomUUID();
        OffsetDateTime now = utc(Instant.now());
        data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, dispatched_at, run_at, created_at, updated_at) VALUES (?, 'EXPORT', ?, ?, ?,"
                + " '{\"timeZone\":\"UTC\"}'::jsonb, 'WAITING', 0, 0, 0, ?, ?, ?, ?)", id, team, owner, scope, now, now,
                now, now);
        return id;
    }

    private String tasks() {
        return "teams/" + t.id() + "/tasks";
    }

    private static OffsetDateTime utc(Instant i) {
        return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static void assertProblem(Reply r, int status, String code) {
        assertEquals(status, r.status(), r.toString());
        assertTrue(r.header("Content-Type").startsWith("application/problem+json"), r.toString());
        assertEquals(code, r.json().getString("code"), r.toString());
        assertEquals(status, r.json().getInt("status"), r.toString());
    }
}
