package bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * P10 (issue 53): SLA clocks at {@code tickets} OPEN tickets of one team — the time of a calendar write through the API
 * (every clock re-targeted and its escalations started, in the write's transaction), and the dispatch sweep's cost
 * with those escalations in the ledger.
 *
 * <ol>
 * <li><b>Setup.</b> Team bench-sla (SQL: the bench owner OWNER, staff-1 STAFF), its calendar and its policies for the
 *     four priorities through the API; one ticket per priority through the API ({@code POST .../tickets}, assigned to
 *     staff-1): the production code writes its ticket row, its two clocks (RUNNING) and four escalation rows (warning
 *     and breach of each clock, {@code KindLedger.scheduleOnce}). Those four tickets are the templates: the other
 *     {@code tickets - 4} are copies made in SQL (INSERT ... SELECT over generate_series), ticket, clocks and
 *     escalation rows each the template's row with the new ticket's id (in the escalation's parameters and once_key
 *     too). Then VACUUM ANALYZE.</li>
 * <li><b>Calendar writes.</b> {@code runs} times: GET the calendar (its ETag), PUT the other of two calendars (working
 *     hours 09:00-17:00 and 08:00-18:00 on weekdays, Europe/Berlin) with {@code If-Match}, timed from the request to
 *     the answer (200). Checked after each: every clock that was RUNNING or PAUSED has its version moved by exactly
 *     one, and every RUNNING clock has its two escalation rows at the new version, due at its warn_at and due_at; the
 *     rows written are counted. Untimed between runs: the escalations of the versions before are deleted (they would
 *     wait, then complete as superseded) and the tables VACUUMed, so that every write starts from the same ledger.</li>
 * <li><b>The two big statements alone</b> (what the write's time is made of), each in a transaction rolled back:
 *     SlaClocks' one UPDATE of every clock, and scheduleOnce's one INSERT of the escalation rows, with as many rows
 *     as the write makes, bound as the server binds them.</li>
 * <li><b>The dispatch sweep</b> (R18) with the escalations in the ledger, as P5 measures it: JdbcTaskLedger's
 *     lockDue query (SQL copied) and one markDispatched UPDATE for the batch, COMMIT; 0 rows due (the steady state:
 *     every escalation lies in the future) and a full batch of 200 due (the sweep bound to the instant the first
 *     escalations fall due: the server's own sweep, bound to the real time, never sees them); restored after each
 *     run; EXPLAIN (ANALYZE, BUFFERS) custom and generic plans.</li>
 * </ol>
 *
 * <p>Usage: {@code P10SlaClocks <base url> <private key> <jdbc url> <db user> <tickets> <runs>}. Prints one JSON
 * object; fails loudly when a check fails.
 */
public final class P10SlaClocks {
    static final UUID TEAM = UUID.fromString("7b000000-0000-4000-8000-000000100000");
    static final UUID STAFF = UUID.fromString("b2000000-0000-4000-8000-000000000001");
    static final String[] PRIORITIES = {"LOW", "NORMAL", "HIGH", "URGENT"};
    static final String POLICIES = "{\"policies\":["
            + "{\"priority\":\"LOW\",\"firstResponseMinutes\":2880,\"resolutionMinutes\":28800,\"warnPercent\":75},"
            + "{\"priority\":\"NORMAL\",\"firstResponseMinutes\":960,\"resolutionMinutes\":9600,\"warnPercent\":75},"
            + "{\"priority\":\"HIGH\",\"firstResponseMinutes\":480,\"resolutionMinutes\":4800,\"warnPercent\":75},"
            + "{\"priority\":\"URGENT\",\"firstResponseMinutes\":240,\"resolutionMinutes\":2400,\"warnPercent\":75}]}";

    /** The two calendars the writes alternate between: weekdays 09:00-17:00, and 08:00-18:00, with a holiday. */
    static String calendar(int which) {
        String start = which == 0 ? "09:00" : "08:00";
        String end = which == 0 ? "17:00" : "18:00";
        StringBuilder shifts = new StringBuilder();
        for (String d : new String[] {"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"}) {
            shifts.append(shifts.length() == 0 ? "" : ",").append("{\"day\":\"").append(d).append("\",\"start\":\"")
                    .append(start).append("\",\"end\":\"").append(end).append("\"}");
        }
        return "{\"zone\":\"Europe/Berlin\",\"shifts\":[" + shifts + "],\"holidays\":[{\"first\":\"2027-12-24\","
                + "\"last\":\"2027-12-26\",\"name\":\"Christmas\"}" + (which == 0 ? "" : ",{\"first\":\"2027-05-01\","
                + "\"name\":\"Labour Day\"}") + "]}";
    }

    // ---- copied from the server (bench/run checks that the sources still contain them) ----
    /** JdbcTaskLedger.lockDueForDispatch (DUE + lockDue). */
    static final String LOCK_DUE = "SELECT id, run, team_id, kind, trace_parent FROM background_task WHERE "
            + "status = 'WAITING' AND dispatched_at IS NULL AND waits_for = 0 AND run_at <= ?"
            + " ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED";
    /** JdbcTaskLedger.markDispatched(List). */
    static final String MARK_DISPATCHED = "UPDATE background_task t SET dispatched_at = ?, updated_at = ?"
            + " FROM unnest(?::uuid[], ?::int[]) AS j(id, run)"
            + " WHERE t.id = j.id AND t.run = j.run AND t.status = 'WAITING'";
    /** JdbcTaskLedger.scheduleOnce. */
    static final String ONCE_INSERT = "INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters,"
            + " status, run, attempts, progress, run_at, created_at, updated_at, once_key) SELECT r.id, r.kind,"
            + " r.team_id, r.owner_id, r.scope, r.params::jsonb, 'WAITING', 0, 0, 0, r.run_at::timestamptz, ?, ?,"
            + " r.once_key FROM unnest(?::uuid[], ?::text[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[],"
            + " ?::text[]) AS r(id, kind, team_id, owner_id, scope, params, once_key, run_at)"
            + " ON CONFLICT (once_key) WHERE once_key IS NOT NULL DO NOTHING";
    /** SlaClocks.saveAll: every clock of a team-wide re-target in one statement. */
    static final String CLOCKS_UPDATE = "UPDATE ticket_sla_clock c SET state = u.state, target_seconds ="
            + " u.target_seconds, warn_percent = u.warn_percent, used_micros = u.used_micros, running_since ="
            + " u.running_since::timestamptz, due_at = u.due_at::timestamptz, warn_at = u.warn_at::timestamptz,"
            + " ended_at = u.ended_at::timestamptz, version = u.version, updated_at = ? FROM unnest(?::uuid[],"
            + " ?::text[], ?::text[], ?::bigint[], ?::integer[], ?::bigint[], ?::text[], ?::text[], ?::text[],"
            + " ?::text[], ?::integer[]) AS u(ticket_id, metric, state, target_seconds, warn_percent, used_micros,"
            + " running_since, due_at, warn_at, ended_at, version) WHERE c.ticket_id = u.ticket_id AND c.metric ="
            + " u.metric AND c.team_id = ?";
    // ----------------------------------------------------------------------------------------

    static final int BATCH = 200; // teamdesk.dispatch.batch-size
    static final int SWEEP_RUNS = 31;
    static final int WARMUP = 6;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;
    private final Connection db;
    private final StringBuilder out = new StringBuilder("{");

    private P10SlaClocks(String base, String token, Connection db) {
        if (!URI.create(base).getHost().equals("127.0.0.1")) {
            throw new IllegalArgumentException("benchmarks talk to 127.0.0.1 only: " + base);
        }
        this.base = base;
        this.token = token;
        this.db = db;
    }

    public static void main(String[] args) throws Exception {
        String token = Api.token(Path.of(args[1]), Api.OWNER, "bench-owner");
        int tickets = Integer.parseInt(args[4]);
        int runs = Integer.parseInt(args[5]);
        if (tickets < 4 || runs < 1) {
            throw new IllegalArgumentException("tickets >= 4 and runs >= 1");
        }
        try (Connection db = DriverManager.getConnection(args[2], args[3], "")) {
            db.setAutoCommit(true);
            P10SlaClocks b = new P10SlaClocks(args[0], token, db);
            b.setup(tickets);
            b.writes(runs);
            b.statements();
            b.sweep();
            b.out.append('}');
            System.out.println(b.out);
        }
    }

    // ---- setup ----

    private void setup(int tickets) throws Exception {
        long t0 = System.nanoTime();
        exec("INSERT INTO team (id, slug, name) VALUES (?, 'bench-sla', 'Bench SLA')", TEAM);
        exec("INSERT INTO membership (team_id, user_id, role) VALUES (?, ?, 'OWNER'), (?, ?, 'STAFF')", TEAM, Api.OWNER,
                TEAM, STAFF);
        send("PUT", "/calendar", calendar(0), null, 200);
        send("PUT", "/sla-policies", POLICIES, null, 200);
        UUID[] templates = new UUID[PRIORITIES.length];
        for (int i = 0; i < PRIORITIES.length; i++) {
            String body = "{\"title\":\"P10 template " + PRIORITIES[i] + "\",\"body\":\"The printer jams again.\","
                    + "\"priority\":\"" + PRIORITIES[i] + "\",\"assigneeId\":\"" + STAFF + "\"}";
            JsonObject t = JsonParser.parseString(send("POST", "/tickets", body, null, 201).body()).getAsJsonObject();
            templates[i] = UUID.fromString(t.get("id").getAsString());
        }
        // what the production code wrote for each template: 2 RUNNING clocks, 4 escalation rows
        long clocks = count("SELECT count(*) FROM ticket_sla_clock WHERE ticket_id = ANY(?) AND state = 'RUNNING'"
                + " AND warn_at IS NOT NULL AND due_at IS NOT NULL", uuids(templates));
        long escalations = count("SELECT count(*) FROM background_task WHERE kind = 'SLA_ESCALATION' AND"
                + " filters->>'ticketId' = ANY(?::text[])", texts(templates));
        if (clocks != 2L * templates.length || escalations != 4L * templates.length) {
            throw new IllegalStateException("the templates have " + clocks + " running clocks and " + escalations
                    + " escalation rows; expected " + 2 * templates.length + " and " + 4 * templates.length);
        }
        double apiS = (System.nanoTime() - t0) / 1e9;
        long t1 = System.nanoTime();
        db.setAutoCommit(false);
        exec("CREATE TEMP TABLE p10_copy (n integer, id uuid, template uuid) ON COMMIT DROP");
        exec("INSERT INTO p10_copy SELECT n, gen_random_uuid(), (?::uuid[])[1 + n % 4] FROM generate_series(1, ?) n",
                uuids(templates), tickets - templates.length);
        exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) SELECT m.id, t.team_id, 'P10 ticket ' || m.n, t.body, t.status, t.priority,"
                + " t.assignee_id, t.requester_id, t.created_at, t.updated_at, t.version FROM p10_copy m JOIN ticket t"
                + " ON t.id = m.template");
        exec("INSERT INTO ticket_sla_clock (ticket_id, team_id, metric, state, target_seconds, warn_percent, used_micros,"
                + " running_since, due_at, warn_at, ended_at, version, updated_at) SELECT m.id, c.team_id, c.metric,"
                + " c.state, c.target_seconds, c.warn_percent, c.used_micros, c.running_since, c.due_at, c.warn_at,"
                + " c.ended_at, c.version, c.updated_at FROM p10_copy m JOIN ticket_sla_clock c ON c.ticket_id ="
                + " m.template");
        exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts, progress,"
                + " run_at, created_at, updated_at, once_key, once_group) SELECT gen_random_uuid(), b.kind, b.team_id,"
                + " b.owner_id, b.scope, jsonb_set(b.filters, '{ticketId}', to_jsonb(m.id::text)), b.status, b.run,"
                + " b.attempts, b.progress, b.run_at, b.created_at, b.updated_at, replace(b.once_key, m.template::text,"
                + " m.id::text), replace(b.once_group, m.template::text, m.id::text)"
                + " FROM p10_copy m JOIN background_task b ON b.kind = 'SLA_ESCALATION' AND b.filters->>'ticketId' ="
                + " m.template::text");
        db.commit();
        db.setAutoCommit(true);
        double copyS = (System.nanoTime() - t1) / 1e9;
        vacuum();
        long running = count("SELECT count(*) FROM ticket_sla_clock WHERE team_id = ? AND state = 'RUNNING'", TEAM);
        long rows = escalations();
        System.err.printf(Locale.ROOT, "P10 setup: %d tickets (4 through the API in %.1f s, the others copied in SQL in"
                + " %.1f s), %d running clocks, %d escalation rows%n", tickets, apiS, copyS, running, rows);
        out.append(String.format(Locale.ROOT, "\"tickets\":%d,\"runningClocks\":%d,\"escalationRowsAtStart\":%d,"
                + "\"setupApiSeconds\":%.3f,\"setupCopySeconds\":%.3f", tickets, running, rows, apiS, copyS));
    }

    // ---- calendar writes through the API ----

    private void writes(int runs) throws Exception {
        double[] secs = new double[runs];
        StringBuilder each = new StringBuilder();
        long clocksMoved = 0;
        long inserted = 0;
        for (int r = 0; r < runs; r++) {
            exec("DROP TABLE IF EXISTS p10_before");
            exec("CREATE TEMP TABLE p10_before (ticket_id uuid, metric text, state text, version integer)");
            exec("INSERT INTO p10_before SELECT ticket_id, metric, state, version FROM ticket_sla_clock"
                    + " WHERE team_id = ? AND state IN ('RUNNING', 'PAUSED')", TEAM);
            long open = count("SELECT count(*) FROM p10_before");
            long before = escalations();
            HttpResponse<String> got = send("GET", "/calendar", null, null, 200);
            String etag = got.headers().firstValue("ETag").orElseThrow();
            String load = loadAverage();
            long t0 = System.nanoTime();
            send("PUT", "/calendar", calendar((r + 1) % 2), etag, 200);
            secs[r] = (System.nanoTime() - t0) / 1e9;
            // checks (untimed)
            long moved = count("SELECT count(*) FROM p10_before b JOIN ticket_sla_clock c USING (ticket_id, metric)"
                    + " WHERE c.version = b.version + 1");
            if (moved != open) {
                throw new IllegalStateException("run " + (r + 1) + ": " + moved + " of " + open + " clocks moved by one");
            }
            long running = count("SELECT count(*) FROM ticket_sla_clock WHERE team_id = ? AND state = 'RUNNING'", TEAM);
            long expected = count("SELECT count(warn_at) + count(due_at) FROM ticket_sla_clock WHERE team_id = ? AND"
                    + " state = 'RUNNING'", TEAM);
            long added = escalations() - before;
            long matching = count("SELECT count(*) FROM ticket_sla_clock c JOIN background_task b ON b.once_key IN"
                    + " ('sla:' || c.ticket_id || ':' || c.metric || ':WARNING:' || c.version, 'sla:' || c.ticket_id"
                    + " || ':' || c.metric || ':BREACH:' || c.version) AND b.status = 'WAITING' AND b.run_at ="
                    + " CASE WHEN b.once_key LIKE '%:WARNING:%' THEN c.warn_at ELSE c.due_at END"
                    + " WHERE c.team_id = ? AND c.state = 'RUNNING'", TEAM);
            if (expected != 2 * running || added != expected || matching != expected) {
                throw new IllegalStateException("run " + (r + 1) + ": " + running + " running clocks, " + added
                        + " escalation rows added, " + matching + " at the clocks' new versions and instants; expected "
                        + 2 * running + " of each");
            }
            clocksMoved = moved;
            inserted = added;
            System.err.printf(Locale.ROOT, "P10 calendar write %d: %.3f s (load %s), %d clocks moved, %d escalation"
                    + " rows added%n", r + 1, secs[r], load, moved, added);
            each.append(each.length() == 0 ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"seconds\":%.3f,\"clocksMoved\":%d,\"escalationsInserted\":%d,\"loadBefore\":\"%s\"}", secs[r],
                    moved, added, load));
            // untimed: the escalations of the versions before go, so that every write starts from the same ledger
            exec("DELETE FROM background_task b USING ticket_sla_clock c WHERE b.kind = 'SLA_ESCALATION' AND"
                    + " b.team_id = ? AND b.status = 'WAITING' AND c.ticket_id = (b.filters->>'ticketId')::uuid AND"
                    + " c.metric = b.filters->>'metric' AND (b.filters->>'version')::int <> c.version", TEAM);
            vacuum();
        }
        double[] s = secs.clone();
        Arrays.sort(s);
        double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
        out.append(String.format(Locale.ROOT, ",\"calendarWrite\":{\"runs\":%d,\"medianSeconds\":%.3f,\"minSeconds\":%.3f,"
                + "\"maxSeconds\":%.3f,\"clocksUpdated\":%d,\"escalationsInserted\":%d,\"each\":[%s]}", runs, median,
                s[0], s[s.length - 1], clocksMoved, inserted, each));
    }

    // ---- the two big statements alone ----

    private void statements() throws SQLException {
        List<Object[]> clocks = new ArrayList<>();
        try (PreparedStatement ps = prepare("SELECT ticket_id, metric, state, target_seconds, warn_percent, used_micros,"
                + " running_since, due_at, warn_at, ended_at, version FROM ticket_sla_clock WHERE team_id = ? AND state"
                + " IN ('RUNNING', 'PAUSED') ORDER BY ticket_id, metric", TEAM); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                clocks.add(new Object[] {rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getLong(4),
                        rs.getInt(5), rs.getLong(6), ts(rs, 7), ts(rs, 8), ts(rs, 9), ts(rs, 10), rs.getInt(11)});
            }
        }
        int n = clocks.size();
        Object[][] col = new Object[11][n];
        for (int k = 0; k < n; k++) {
            for (int j = 0; j < 11; j++) {
                col[j][k] = clocks.get(k)[j];
            }
            col[10][k] = (Integer) col[10][k] + 1;
        }
        // the escalations of those clocks at a version no write made (so none conflicts), as scheduleOnce binds them
        List<Object[]> tasks = new ArrayList<>();
        for (Object[] c : clocks) {
            for (String threshold : new String[] {"WARNING", "BREACH"}) {
                String at = (String) c[threshold.equals("WARNING") ? 8 : 7];
                if (at == null) {
                    continue;
                }
                int version = (Integer) c[10] + 1_000_000;
                tasks.add(new Object[] {UUID.randomUUID(), "SLA_ESCALATION", TEAM, Api.OWNER, "TEAM",
                        "{\"ticketId\":\"" + c[0] + "\",\"metric\":\"" + c[1] + "\",\"threshold\":\"" + threshold
                                + "\",\"version\":" + version + "}",
                        "sla:" + c[0] + ":" + c[1] + ":" + threshold + ":" + version, at});
            }
        }
        int m = tasks.size();
        Object[][] tcol = new Object[8][m];
        for (int k = 0; k < m; k++) {
            for (int j = 0; j < 8; j++) {
                tcol[j][k] = tasks.get(k)[j];
            }
        }
        double[] clockMs = new double[3];
        double[] insertMs = new double[3];
        for (int r = 0; r < 3; r++) {
            db.setAutoCommit(false);
            try {
                Instant now = Instant.now();
                long t0 = System.nanoTime();
                int u = update(CLOCKS_UPDATE, now, arr("uuid", col[0]), arr("text", col[1]), arr("text", col[2]),
                        arr("bigint", col[3]), arr("integer", col[4]), arr("bigint", col[5]), arr("text", col[6]),
                        arr("text", col[7]), arr("text", col[8]), arr("text", col[9]), arr("integer", col[10]), TEAM);
                clockMs[r] = (System.nanoTime() - t0) / 1e6;
                long t1 = System.nanoTime();
                int i = update(ONCE_INSERT, now, now, arr("uuid", tcol[0]), arr("text", tcol[1]), arr("uuid", tcol[2]),
                        arr("uuid", tcol[3]), arr("text", tcol[4]), arr("text", tcol[5]), arr("text", tcol[6]),
                        arr("text", tcol[7]));
                insertMs[r] = (System.nanoTime() - t1) / 1e6;
                if (u != n || i != m) {
                    throw new IllegalStateException("statements alone: " + u + " of " + n + " clocks, " + i + " of " + m
                            + " escalations");
                }
            } finally {
                db.rollback();
                db.setAutoCommit(true);
            }
            vacuum();
            System.err.printf(Locale.ROOT, "P10 statements alone %d: clocks UPDATE (%d rows) %.0f ms, escalations INSERT"
                    + " (%d rows) %.0f ms%n", r + 1, n, clockMs[r], m, insertMs[r]);
        }
        Arrays.sort(clockMs);
        Arrays.sort(insertMs);
        out.append(String.format(Locale.ROOT, ",\"statementsAlone\":{\"clockRows\":%d,\"clockUpdateMedianMs\":%.1f,"
                + "\"escalationRows\":%d,\"escalationInsertMedianMs\":%.1f}", n, clockMs[1], m, insertMs[1]));
    }

    // ---- the dispatch sweep (R18) ----

    private void sweep() throws SQLException {
        long ledger = count("SELECT count(*) FROM background_task");
        long waiting = count("SELECT count(*) FROM background_task WHERE status = 'WAITING' AND dispatched_at IS NULL"
                + " AND waits_for = 0");
        String size;
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_size_pretty("
                + "pg_total_relation_size('background_task')), pg_size_pretty(pg_relation_size("
                + "'background_task_dispatch_idx'))")) {
            rs.next();
            size = rs.getString(1) + " (dispatch index " + rs.getString(2) + ")";
        }
        Instant first; // the instant at which a full batch is due (the copies' escalations share their instants)
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("SELECT run_at FROM background_task"
                + " WHERE status = 'WAITING' AND dispatched_at IS NULL AND waits_for = 0 ORDER BY run_at OFFSET "
                + (BATCH - 1) + " LIMIT 1")) {
            rs.next();
            first = rs.getObject(1, OffsetDateTime.class).toInstant();
        }
        long dueAtFirst = count("SELECT count(*) FROM background_task WHERE status = 'WAITING' AND dispatched_at IS NULL"
                + " AND waits_for = 0 AND run_at <= ?", first);
        System.err.printf(Locale.ROOT, "P10 sweep: ledger %d rows, %s, %d waiting undispatched; the first escalations"
                + " fall due at %s (%d of them)%n", ledger, size, waiting, first, dueAtFirst);
        out.append(String.format(Locale.ROOT, ",\"ledger\":{\"rows\":%d,\"waitingUndispatched\":%d,\"size\":\"%s\","
                + "\"firstDueAt\":\"%s\",\"dueAtFirst\":%d},\"sweeps\":[", ledger, waiting, size, first, dueAtFirst));
        sweepScenario(0, null);
        out.append(',');
        sweepScenario(BATCH, first);
        out.append(']');
    }

    /** {@code due} null: bound to the real time (nothing due); else to that instant (a full batch due). */
    private void sweepScenario(int expected, Instant due) throws SQLException {
        double[] ms = new double[SWEEP_RUNS];
        for (int i = -WARMUP; i < SWEEP_RUNS; i++) {
            Instant now = due != null ? due : Instant.now();
            long t0 = System.nanoTime();
            List<UUID> ids = new ArrayList<>();
            List<Integer> runs = new ArrayList<>();
            db.setAutoCommit(false);
            try {
                try (PreparedStatement ps = prepare(LOCK_DUE, now, BATCH); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getObject(1, UUID.class));
                        runs.add(rs.getInt(2));
                    }
                }
                int marked = ids.isEmpty() ? 0 : update(MARK_DISPATCHED, now, now, arr("uuid", ids.toArray()),
                        arr("int4", runs.toArray()));
                db.commit();
                double t = (System.nanoTime() - t0) / 1e6;
                if (ids.size() != expected || marked != expected) {
                    throw new IllegalStateException("sweep locked " + ids.size() + ", marked " + marked + ", expected "
                            + expected);
                }
                if (i >= 0) {
                    ms[i] = t;
                }
            } finally {
                db.setAutoCommit(true);
            }
            if (!ids.isEmpty()) { // untimed: as they were (undispatched, written when the write made them)
                update("UPDATE background_task SET dispatched_at = NULL, updated_at = created_at WHERE id = ANY(?)",
                        arr("uuid", ids.toArray()));
            }
        }
        Instant now = due != null ? due : Instant.now();
        List<String> plan = plans(LOCK_DUE, now, BATCH);
        List<UUID> sample = new ArrayList<>();
        try (PreparedStatement ps = prepare(LOCK_DUE.replace(" FOR UPDATE SKIP LOCKED", ""), now, BATCH);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                sample.add(rs.getObject(1, UUID.class));
            }
        }
        List<String> markPlan = sample.isEmpty() ? List.of() : plans(MARK_DISPATCHED, now, now,
                arr("uuid", sample.toArray()), arr("int4", Collections.nCopies(sample.size(), 0).toArray()));
        double[] s = ms.clone();
        Arrays.sort(s);
        boolean seq = plan.stream().anyMatch(l -> l.contains("Seq Scan")) || markPlan.stream().anyMatch(l -> l.contains("Seq Scan"));
        System.err.printf(Locale.ROOT, "P10 dispatch sweep, %3d due: median %.2f ms, p90 %.2f ms, max %.2f ms, seqScan=%s%n",
                expected, s[s.length / 2], s[(int) Math.ceil(s.length * 0.9) - 1], s[s.length - 1], seq);
        out.append(String.format(Locale.ROOT, "{\"rows\":%d,\"medianMs\":%.3f,\"p90Ms\":%.3f,\"minMs\":%.3f,\"maxMs\":%.3f,"
                + "\"seqScan\":%s,\"plan\":%s,\"markPlan\":%s}", expected, s[s.length / 2],
                s[(int) Math.ceil(s.length * 0.9) - 1], s[0], s[s.length - 1], seq, json(plan), json(markPlan)));
    }

    /** EXPLAIN (ANALYZE, BUFFERS) of the statement PREPAREd, custom and generic plan (as P5), rolled back. */
    private List<String> plans(String sql, Object... args) throws SQLException {
        List<String> lines = new ArrayList<>();
        StringBuilder values = new StringBuilder();
        for (Object a : args) {
            values.append(values.length() == 0 ? "" : ", ");
            if (a instanceof Instant t) {
                values.append('\'').append(OffsetDateTime.ofInstant(t, ZoneOffset.UTC)).append('\'');
            } else if (a instanceof java.sql.Array arr) {
                values.append('\'').append(arr.toString()).append('\'');
            } else {
                values.append(a);
            }
        }
        db.setAutoCommit(false);
        try (Statement st = db.createStatement()) {
            st.execute("PREPARE bench_p10 AS " + numbered(sql));
            for (String mode : new String[] {"force_custom_plan", "force_generic_plan"}) {
                lines.add(mode.equals("force_custom_plan") ? "-- custom plan (the bound values known to the planner):"
                        : "-- generic plan (what a server-side prepared statement may switch to):");
                st.execute("SET LOCAL plan_cache_mode = " + mode);
                st.execute("SAVEPOINT before_explain");
                try (ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, BUFFERS) EXECUTE bench_p10(" + values + ")")) {
                    while (rs.next()) {
                        lines.add(rs.getString(1));
                    }
                }
                st.execute("ROLLBACK TO SAVEPOINT before_explain");
            }
        } finally {
            db.rollback();
            try (Statement st = db.createStatement()) {
                st.execute("DEALLOCATE ALL");
            }
            db.setAutoCommit(true);
        }
        return lines;
    }

    // ---- plumbing ----

    private HttpResponse<String> send(String method, String path, String body, String ifMatch, int expect)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/api/v1/teams/" + TEAM + path))
                .timeout(Duration.ofMinutes(30)).header("Authorization", "Bearer " + token);
        if (ifMatch != null) {
            b.header("If-Match", ifMatch);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != expect) {
            throw new IllegalStateException(method + " " + path + ": expected " + expect + ", got " + r.statusCode()
                    + ": " + r.body());
        }
        return r;
    }

    private long escalations() throws SQLException {
        return count("SELECT count(*) FROM background_task WHERE kind = 'SLA_ESCALATION' AND team_id = ?", TEAM);
    }

    /** What autovacuum would do between bulk writes (it is off on this machine kind); not timed. */
    private void vacuum() throws SQLException {
        try (Statement st = db.createStatement()) {
            st.execute("VACUUM (ANALYZE) ticket, ticket_sla_clock, background_task");
        }
    }

    private static String loadAverage() {
        try {
            String[] f = java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private static String ts(ResultSet rs, int i) throws SQLException {
        OffsetDateTime t = rs.getObject(i, OffsetDateTime.class);
        return t == null ? null : t.toInstant().toString();
    }

    private java.sql.Array arr(String type, Object[] elements) throws SQLException {
        return db.createArrayOf(type, elements);
    }

    private java.sql.Array uuids(UUID[] ids) throws SQLException {
        return db.createArrayOf("uuid", ids);
    }

    private java.sql.Array texts(UUID[] ids) throws SQLException {
        return db.createArrayOf("text", Arrays.stream(ids).map(UUID::toString).toArray());
    }

    private PreparedStatement prepare(String sql, Object... args) throws SQLException {
        PreparedStatement ps = db.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof Instant t) {
                ps.setObject(i + 1, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
            } else {
                ps.setObject(i + 1, a);
            }
        }
        return ps;
    }

    private void exec(String sql, Object... args) throws SQLException {
        update(sql, args);
    }

    private int update(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(sql, args)) {
            return ps.executeUpdate();
        }
    }

    private long count(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(sql, args); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** JDBC '?' placeholders to $1, $2, ... for PREPARE. */
    private static String numbered(String sql) {
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            sb.append(ch == '?' ? "$" + ++n : String.valueOf(ch));
        }
        return sb.toString();
    }

    private static String json(List<String> lines) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < lines.size(); i++) {
            sb.append(i == 0 ? "" : ",").append('"')
                    .append(lines.get(i).replace("\\", "\\\\").replace("\"", "\\\"").replace("\t", "    "))
                    .append('"');
        }
        return sb.append(']').toString();
    }
}
