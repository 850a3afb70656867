package com.teamdesk.tasks.task.export;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.team.JdbcTicketReader;
import com.teamdesk.tasks.team.TicketFilter;
import com.teamdesk.tasks.team.TicketReaders;
import com.teamdesk.tasks.team.TicketRow;
import com.teamdesk.tasks.team.TicketStatus;
import com.teamdesk.tasks.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Issue 16 / R13: the CSV that PostgreSQL's COPY produces ({@link CopyCsv}) is byte for byte the CSV
 * of the Commons CSV writer it replaced ({@link ExportCsv}, kept here as the reference, fed by the
 * same keyset reads as before), on the demo data and on tickets made of every cell that quoting and
 * neutralisation treat specially: Chinese, emoji, {@code "}, CR, LF, CRLF, commas, each formula prefix
 * ({@code = + - @}, tab, CR), each character up to {@code #} at the start and up to a space at the
 * end, NULL and empty cells, backslashes; timestamps one second around every offset transition of
 * 2025-2027 in the zones checked, offsets with seconds (Kolkata 1890), ties of {@code created_at}
 * across batch boundaries, years 1583-9999 and beyond, and {@code infinity}. Real PostgreSQL, a
 * schema of its own, sessions in {@code America/Los_Angeles} (the JVM runs in Sao Paulo).
 *
 * <p>Dates before the Gregorian reform (1582) are left out on purpose: the old reader went through
 * {@code java.sql.Timestamp}, whose Julian calendar shifted them by days; the COPY path writes the
 * proleptic Gregorian date PostgreSQL stores (docs/decisions.md, issue 16).
 */
class CopyCsvIdentityTest {

    private static final UUID DEMO_TEAM = UUID.fromString("7ea40000-0000-4000-8000-000000000001");
    private static final UUID CHEN = UUID.fromString("05e40000-0000-4000-8000-000000000003");
    private static final List<ZoneId> ZONES = List.of(ZoneOffset.UTC, ZoneId.of("UTC"), ZoneId.of("America/Los_Angeles"),
            ZoneId.of("Asia/Kolkata"), ZoneId.of("Australia/Lord_Howe"), ZoneId.of("Asia/Shanghai"),
            ZoneId.of("America/St_Johns"), ZoneId.of("Europe/London"), ZoneOffset.ofHoursMinutes(5, 30),
            ZoneId.of("GMT+08:00"), ZoneId.of("Etc/GMT+5"));

    /** Every text that the neutraliser or the quoting treats specially, and some that they must not. */
    static final List<String> TEXTS = List.of("plain", "", "打印机坏了", "emoji 🙂 inside", "🙂", "a,b", "say \"hi\"", "\"",
            "line\nbreak", "cr\rinside", "crlf\r\nend", "=SUM(A1:A2)", "+1 call back", "-5% refund", "@channel", "\tTabbed",
            "\rCR first", "=", "-", "'already quoted", " leading space", "!bang", "#hash", "$dollar", "%pct", "&amp",
            "trailing space ", "trailing tab\t", "trailing lf\n", "trailing cr\r", " ", "\t", "\n", "\r\n", "back\\slash",
            "\\.", "it's \\ 100% _x_", "ends with emoji 🙂", "中文,逗号", "=\"quoted formula\"", "\u0001control",
            "control end\u0001", "\u00a0nbsp", "nbsp end\u00a0", "\u2028separator", "😀😀", "\"=\"", "@", "+");
    private static final List<String> USERNAMES = List.of("=evil", " spaced ", "名字🙂", "a,b", "\"q\"", "#tag", "tab\t",
            "plain-user", "-dash");

    /** Usernames asked while a COPY is open on {@link #shared}: another connection, as in the server. */
    private static final java.util.Map<UUID, String> NAMES = new java.util.HashMap<>();
    private static int nameLookups;

    private static String username(UUID id) {
        nameLookups++;
        return NAMES.computeIfAbsent(id, u -> TicketReaders.over(db).usernames(null, List.of(u)).get(u));
    }

    private static String schema;
    private static PGSimpleDataSource db;
    private static JdbcTicketReader reader;
    private static UUID oddTeam;
    /** One session for every read of both paths (a new connection per batch made this test slow). */
    private static Connection shared;

    @BeforeAll
    static void schemaWithDemoDataAndOddTickets() throws SQLException, IOException {
        schema = "copy_csv_test_" + UUID.randomUUID().toString().substring(0, 8);
        db = TestDatabase.inNewSchema(new PGSimpleDataSource(), schema);
        db.setOptions("-c TimeZone=America/Los_Angeles");
        Flyway.configure().dataSource(db).schemas(schema).locations("classpath:db/migration").load().migrate();
        try (InputStream in = CopyCsvIdentityTest.class.getClassLoader().getResourceAsStream("demo/seed.sql");
                Connection c = db.getConnection(); Statement st = c.createStatement()) {
            st.execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        shared = db.getConnection();
        reader = TicketReaders.over(oneConnection(shared));
        oddTeam = UUID.randomUUID();
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, ?)", oddTeam, "odd", "Odd cells");
        List<UUID> users = new ArrayList<>();
        for (String name : USERNAMES) {
            UUID u = UUID.randomUUID();
            exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, ?)", u, name, name);
            exec("INSERT INTO membership (team_id, user_id, role) VALUES (?, ?, 'STAFF')", oddTeam, u);
            users.add(u);
        }
        List<String> times = times();
        List<String> updated = new ArrayList<>(times);
        updated.add("infinity"); // an updated_at only: as a keyset cursor it was out of range before and after
        int n = Math.max(TEXTS.size(), updated.size());
        for (int i = 0; i < n; i++) {
            UUID assignee = i % (users.size() + 1) == users.size() ? null : users.get(i % (users.size() + 1));
            exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                    + " updated_at, version) VALUES (?, ?, ?, ?, ?, 'HIGH', ?, ?, ?::timestamptz, ?::timestamptz, ?)",
                    UUID.randomUUID(), oddTeam, TEXTS.get(i % TEXTS.size()), TEXTS.get((i * 7 + 3) % TEXTS.size()),
                    i % 3 == 0 ? "CLOSED" : "OPEN", assignee, users.get(i % users.size()),
                    times.get(i % times.size()), updated.get((i * 5 + 1) % updated.size()), i % 4 == 0 ? -i : i);
        }
    }

    /** created_at / updated_at values as PostgreSQL literals: transitions, ties, far years. */
    private static List<String> times() {
        List<String> out = new ArrayList<>();
        Instant from = Instant.parse("2025-01-01T00:00:00Z");
        Instant to = Instant.parse("2028-01-01T00:00:00Z");
        for (ZoneId zone : ZONES) {
            ZoneOffsetTransition tr = zone.getRules().nextTransition(from);
            while (tr != null && tr.getInstant().isBefore(to)) {
                for (long d = -1; d <= 1; d++) {
                    out.add(tr.getInstant().plusSeconds(d).plusNanos(999_999_000).toString());
                }
                tr = zone.getRules().nextTransition(tr.getInstant());
            }
        }
        for (int tie = 0; tie < 5; tie++) {
            out.add("2026-11-29T01:02:03.456789Z"); // same created_at: the keyset's id order decides
        }
        out.addAll(List.of("1890-06-01T12:00:00Z", "1583-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z", "2000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999Z", "12345-06-07 08:09:10.5+00"));
        return out;
    }

    /** @return a data source that hands out {@code c} every time and ignores close */
    private static DataSource oneConnection(Connection c) {
        Connection unclosable = (Connection) Proxy.newProxyInstance(CopyCsvIdentityTest.class.getClassLoader(),
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
        return (DataSource) Proxy.newProxyInstance(CopyCsvIdentityTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        return unclosable;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @AfterAll
    static void dropTheSchema() throws SQLException {
        if (shared != null) {
            shared.close();
        }
        if (schema != null) {
            try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static void exec(String sql, Object... args) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
    }

    /** The CSV as the export wrote it before issue 16: keyset batches of TicketRow into ExportCsv. */
    private static byte[] reference(UUID team, UUID visibleTo, TicketFilter f, int batchSize) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ExportCsv csv = new ExportCsv(new OutputStreamWriter(out, StandardCharsets.UTF_8), f.timeZone())) {
            List<TicketRow> batch = reader.readBatch(team, visibleTo, f, null, null, batchSize);
            while (!batch.isEmpty()) {
                for (TicketRow row : batch) {
                    csv.write(row);
                }
                TicketRow last = batch.get(batch.size() - 1);
                batch = batch.size() < batchSize ? List.of()
                        : reader.readBatch(team, visibleTo, f, last.createdAt(), last.id(), batchSize);
            }
        }
        return out.toByteArray();
    }

    /** The CSV as ExportRunner writes it now: one COPY per keyset batch. */
    private static byte[] copied(UUID team, UUID visibleTo, TicketFilter f, int batchSize) throws IOException, SQLException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CopyCsv csv = new CopyCsv(out, f.timeZone(), CopyCsvIdentityTest::username);
        Instant after = null;
        UUID afterId = null;
        while (true) {
            CopyCsv.Batch b = csv.copy(shared, reader.batchQuery(CopyCsv.COLUMNS, team, visibleTo, f, after, afterId,
                    batchSize, null), () -> { });
            if (b.rows() < batchSize) {
                break;
            }
            after = b.lastCreatedAt();
            afterId = b.lastId();
        }
        return out.toByteArray();
    }

    private static int assertIdentical(UUID team, UUID visibleTo, TicketFilter f, int batchSize)
            throws IOException, SQLException {
        byte[] expected = reference(team, visibleTo, f, batchSize);
        byte[] actual = copied(team, visibleTo, f, batchSize);
        String what = f.timeZone() + " batch " + batchSize + " " + f.toJson();
        if (!java.util.Arrays.equals(expected, actual)) {
            String[] e = new String(expected, StandardCharsets.UTF_8).split("\r\n", -1);
            String[] a = new String(actual, StandardCharsets.UTF_8).split("\r\n", -1);
            for (int i = 0; i < Math.min(e.length, a.length); i++) {
                assertEquals(e[i], a[i], what + ": first different record piece " + i);
            }
        }
        assertArrayEquals(expected, actual, what);
        return expected.length;
    }

    private static TicketFilter filter(ZoneId zone) {
        return new TicketFilter(EnumSet.noneOf(TicketStatus.class), null, null, null, null, zone);
    }

    @Test
    void demoDataIsIdenticalInEveryZone() throws Exception {
        for (ZoneId zone : ZONES) {
            assertTrue(assertIdentical(DEMO_TEAM, null, filter(zone), 500) > 500_000, "3000 demo tickets");
        }
        assertIdentical(DEMO_TEAM, null, filter(ZoneId.of("Asia/Shanghai")), 7);
        assertIdentical(DEMO_TEAM, CHEN, filter(ZoneId.of("Asia/Shanghai")), 500);
        assertIdentical(DEMO_TEAM, null, new TicketFilter(EnumSet.of(TicketStatus.OPEN, TicketStatus.PENDING), CHEN,
                Instant.parse("2000-01-01T00:00:00Z"), Instant.parse("2100-01-01T00:00:00Z"), null, ZoneOffset.UTC), 100);
    }

    @Test
    void everySpecialCellAndTimestampIsIdenticalInEveryZoneAndBatchSize() throws Exception {
        for (ZoneId zone : ZONES) {
            for (int batchSize : new int[] {500, 7, 3, 1}) {
                assertIdentical(oddTeam, null, filter(zone), batchSize);
            }
        }
        String csv = new String(copied(oddTeam, null, filter(ZoneOffset.UTC), 500), StandardCharsets.UTF_8);
        for (String cell : List.of("'=SUM(A1:A2)", "'+1 call back", "'-5% refund", "'@channel", "\"'\rCR first\"",
                "'\tTabbed", "\"say \"\"hi\"\"\"", "\"crlf\r\nend\"", "\" leading space\"", "\"#hash\"", ",$dollar,",
                "\"trailing space \"", "打印机坏了", "🙂", "\"中文,逗号\"", ",,")) {
            assertTrue(csv.contains(cell), "the data set holds " + cell);
        }
        assertTrue(text(ZoneId.of("Asia/Kolkata")).contains("+05:21:10"), "Kolkata 1890: an offset with seconds");
        String lordHowe = text(ZoneId.of("Australia/Lord_Howe"));
        assertTrue(lordHowe.contains("+10:30") && lordHowe.contains("+11:00"), "Lord Howe's half-hour DST");
        String stJohns = text(ZoneId.of("America/St_Johns"));
        assertTrue(stJohns.contains("-03:30") && stJohns.contains("-02:30"), "St John's");
        assertTrue(text(ZoneOffset.UTC).contains("+12345-06-07T08:09:10Z"), "a year past 9999");
    }

    private static String text(ZoneId zone) throws IOException, SQLException {
        return new String(copied(oddTeam, null, filter(zone), 500), StandardCharsets.UTF_8);
    }

    @Test
    void filtersWithQuotesBackslashesAndWildcardsSelectTheSameRows() throws Exception {
        for (String q : List.of("it's \\ 100% _x_", "'", "\\", "%", "_", "打印", "\"", "'); DROP TABLE ticket; --")) {
            TicketFilter f = new TicketFilter(EnumSet.of(TicketStatus.OPEN), null, null, null, q, ZoneId.of("Asia/Kolkata"));
            assertIdentical(oddTeam, null, f, 500);
            assertIdentical(DEMO_TEAM, null, f, 500);
        }
        TicketFilter one = new TicketFilter(EnumSet.noneOf(TicketStatus.class), null, null, null, "it's \\ 100% _x_",
                ZoneOffset.UTC);
        assertTrue(assertIdentical(oddTeam, null, one, 500) > 100, "the text filter matched the ticket holding it");
    }

    /**
     * The export's count ({@code roleAndCount}, its values as opaque subqueries so its plan is generic: issue
     * 16) counts exactly the rows the batches read, for every filter and both scopes, and reads the role.
     */
    @Test
    void theExportsCountMatchesTheRowsReadForEveryFilter() throws Exception {
        UUID ada = UUID.fromString("05e40000-0000-4000-8000-000000000001");
        Instant from = Instant.parse("2026-01-01T00:00:00Z");
        Instant to = Instant.parse("2027-06-01T00:00:00Z");
        List<TicketFilter> filters = List.of(filter(ZoneOffset.UTC),
                new TicketFilter(EnumSet.of(TicketStatus.OPEN, TicketStatus.PENDING), null, null, null, null, ZoneOffset.UTC),
                new TicketFilter(EnumSet.noneOf(TicketStatus.class), ada, null, null, null, ZoneOffset.UTC),
                new TicketFilter(EnumSet.noneOf(TicketStatus.class), null, from, to, null, ZoneOffset.UTC),
                new TicketFilter(EnumSet.of(TicketStatus.CLOSED), null, from, null, "a", ZoneOffset.UTC),
                new TicketFilter(EnumSet.noneOf(TicketStatus.class), null, null, null, "it's \\ 100% _x_", ZoneOffset.UTC));
        int nonEmpty = 0;
        for (UUID team : List.of(DEMO_TEAM, oddTeam)) {
            for (UUID visibleTo : java.util.Arrays.asList(null, ada)) {
                for (TicketFilter f : filters) {
                    long read = reader.readBatch(team, visibleTo, f, null, null, 1_000_000).size();
                    JdbcTicketReader.RoleAndCount rc = reader.roleAndCount(team, ada, visibleTo, f);
                    assertEquals(read, rc.count(), team + " " + visibleTo + " " + f.toJson());
                    nonEmpty += read > 0 ? 1 : 0;
                    assertEquals(team.equals(DEMO_TEAM), rc.role().isPresent(), "ada is a member of the demo team only");
                }
            }
        }
        assertTrue(nonEmpty >= 10, "most filters match some tickets: " + nonEmpty);
    }

    /**
     * R13's per-batch permission re-check as part of the batch's statement ({@code RoleHolder}): staff
     * holding their role get the same bytes as without the condition; a customer (for a TEAM export),
     * someone of another team or nobody gets an empty batch — which the export tells from the end of
     * the tickets by its own check after the last batch (ExportLeaseIT).
     */
    @Test
    void aBatchHasNoRowOnceItsHolderLostTheRole() throws Exception {
        UUID ada = UUID.fromString("05e40000-0000-4000-8000-000000000001");
        UUID dana = UUID.fromString("05e40000-0000-4000-8000-000000000004");
        UUID zed = UUID.fromString("05e40000-0000-4000-8000-000000000007");
        TicketFilter f = filter(ZoneOffset.UTC);
        assertEquals(100, rows(DEMO_TEAM, f, new JdbcTicketReader.RoleHolder(ada, true)), "the owner is staff");
        assertEquals(100, rows(DEMO_TEAM, f, new JdbcTicketReader.RoleHolder(CHEN, true)), "staff");
        assertEquals(0, rows(DEMO_TEAM, f, new JdbcTicketReader.RoleHolder(dana, true)), "a customer is not staff");
        assertEquals(100, rows(DEMO_TEAM, f, new JdbcTicketReader.RoleHolder(dana, false)), "but a member");
        assertEquals(0, rows(DEMO_TEAM, f, new JdbcTicketReader.RoleHolder(zed, false)), "another team's owner");
        assertEquals(0, rows(DEMO_TEAM, f, new JdbcTicketReader.RoleHolder(UUID.randomUUID(), false)), "nobody");
        ByteArrayOutputStream with = new ByteArrayOutputStream();
        ByteArrayOutputStream without = new ByteArrayOutputStream();
        new CopyCsv(with, ZoneOffset.UTC, CopyCsvIdentityTest::username).copy(shared, reader.batchQuery(CopyCsv.COLUMNS, DEMO_TEAM, null, f, null, null,
                100, new JdbcTicketReader.RoleHolder(ada, true)), () -> { });
        new CopyCsv(without, ZoneOffset.UTC, CopyCsvIdentityTest::username).copy(shared, reader.batchQuery(CopyCsv.COLUMNS, DEMO_TEAM, null, f, null,
                null, 100, null), () -> { });
        assertArrayEquals(without.toByteArray(), with.toByteArray());
    }

    /** The ids become usernames through a per-export map: one look-up per user, however many batches. */
    @Test
    void eachUserIsLookedUpOncePerExport() throws Exception {
        long users;
        try (PreparedStatement ps = shared.prepareStatement("SELECT count(DISTINCT u) FROM (SELECT requester_id u FROM ticket"
                + " WHERE team_id = ? UNION ALL SELECT assignee_id FROM ticket WHERE team_id = ?) x WHERE u IS NOT NULL")) {
            ps.setObject(1, DEMO_TEAM);
            ps.setObject(2, DEMO_TEAM);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                users = rs.getLong(1);
            }
        }
        int before = nameLookups;
        copied(DEMO_TEAM, null, filter(ZoneOffset.UTC), 7);
        assertTrue(users > 3, "the demo data has several requesters and assignees");
        assertEquals(users, nameLookups - before, "one look-up per user over ~430 batches");
    }

    private static int rows(UUID team, TicketFilter f, JdbcTicketReader.RoleHolder holder) throws Exception {
        return new CopyCsv(new ByteArrayOutputStream(), f.timeZone(), CopyCsvIdentityTest::username).copy(shared,
                reader.batchQuery(CopyCsv.COLUMNS, team, null, f, null, null, 100, holder), () -> { }).rows();
    }

    /**
     * What the per-row callback throws (a lost lease, R8/R23) ends the COPY mid-stream and propagates;
     * the rest of the COPY is read out, so the pooled connection is usable again afterwards.
     */
    @Test
    void anErrorInsideTheCopyEndsItAndLeavesTheConnectionUsable() throws Exception {
        CopyCsv csv = new CopyCsv(new ByteArrayOutputStream(), ZoneOffset.UTC, CopyCsvIdentityTest::username);
        int[] rows = {0};
        IllegalStateException thrown = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> csv.copy(shared, reader.batchQuery(CopyCsv.COLUMNS, DEMO_TEAM, null, filter(ZoneOffset.UTC), null,
                        null, 3000, null), () -> {
                            if (++rows[0] == 3) {
                                throw new IllegalStateException("lease lost");
                            }
                        }));
        assertEquals("lease lost", thrown.getMessage());
        assertEquals(3, rows[0], "no row after the failure");
        try (Statement st = shared.createStatement(); java.sql.ResultSet rs = st.executeQuery("SELECT 42")) {
            assertTrue(rs.next());
            assertEquals(42, rs.getInt(1));
        }
        assertTrue(assertIdentical(DEMO_TEAM, null, filter(ZoneOffset.UTC), 500) > 500_000, "a full export after it");
    }
}
