package com.teamdesk.tasks.it.support;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * Test data written straight to PostgreSQL, so every test owns its data: a fresh team with random
 * ids and names per test, never the demo seed, never another test's rows. Works client-side
 * (plain JDBC to {@code TEAMDESK_DB_URL}, as {@code ./teamdesk test} exports it) and in-server
 * (the application's datasource {@code java:app/jdbc/teamdesk}). Each statement autocommits.
 */
public final class TestData {
    /** JNDI name of the application's datasource (SchemaMigration.DATASOURCE). */
    public static final String DATASOURCE = "java:app/jdbc/teamdesk";

    /** Opens a connection. */
    @FunctionalInterface
    interface Connections {
        Connection open() throws SQLException;
    }

    /**
     * A team with one member of each role, plus an outsider who is a member (OWNER) of another
     * team only.
     */
    public record TestTeam(UUID id, String slug, String name, UUID owner, UUID staff, UUID customer, UUID outsider,
            UUID otherTeam) {
    }

    private final Connections connections;

    private TestData(Connections connections) {
        this.connections = connections;
    }

    /** @return test data over plain JDBC: {@code TEAMDESK_DB_URL}, {@code TEAMDESK_DB_USER}/{@code _PASSWORD} */
    public static TestData fromEnvironment() {
        String url = System.getenv("TEAMDESK_DB_URL");
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("TEAMDESK_DB_URL is not set: run the tests with ./teamdesk test");
        }
        String user = Tokens.env("TEAMDESK_DB_USER", "teamdesk");
        String password = Tokens.env("TEAMDESK_DB_PASSWORD", "teamdesk");
        return new TestData(() -> DriverManager.getConnection(url, user, password));
    }

    /**
     * @return test data over the application's datasource. The lookup happens at first use, so a
     *         field initializer is fine: JUnit also creates the test instance client-side.
     */
    public static TestData inServer() {
        return new TestData(() -> {
            try {
                return ((DataSource) new InitialContext().lookup(DATASOURCE)).getConnection();
            } catch (NamingException e) {
                throw new IllegalStateException("no datasource " + DATASOURCE + " (is this running in the server?)", e);
            }
        });
    }

    /** @return a fresh team with an OWNER, a STAFF, a CUSTOMER and an outsider */
    public TestTeam newTeam() {
        UUID team = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        String tag = team.toString().substring(0, 8);
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, ?)", team, "it-" + tag, "IT Team " + tag);
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, ?)", other, "it-other-" + tag, "IT Other " + tag);
        TestTeam t = new TestTeam(team, "it-" + tag, "IT Team " + tag, user("owner-" + tag), user("staff-" + tag),
                user("customer-" + tag), user("outsider-" + tag), other);
        member(team, t.owner(), "OWNER");
        member(team, t.staff(), "STAFF");
        member(team, t.customer(), "CUSTOMER");
        member(other, t.outsider(), "OWNER");
        return t;
    }

    /** @return the id of a new user with this username (display name derived) */
    public UUID user(String username) {
        UUID id = UUID.randomUUID();
        exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, ?)", id, username, "User " + username);
        return id;
    }

    /** Adds (or changes) a membership; role OWNER, STAFF or CUSTOMER. */
    public void member(UUID team, UUID user, String role) {
        exec("INSERT INTO membership (team_id, user_id, role) VALUES (?, ?, ?)"
                + " ON CONFLICT (team_id, user_id) DO UPDATE SET role = EXCLUDED.role", team, user, role);
    }

    /**
     * Inserts a ticket at version 1, priority NORMAL.
     *
     * @param assignee  null for unassigned
     * @param status    OPEN, PENDING or CLOSED
     * @param createdAt also its updatedAt
     * @return its id
     */
    public UUID ticket(UUID team, UUID requester, UUID assignee, String title, String status, Instant createdAt) {
        UUID id = UUID.randomUUID();
        OffsetDateTime at = utc(createdAt);
        exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) VALUES (?, ?, ?, ?, ?, 'NORMAL', ?, ?, ?, ?, 1)", id, team, title,
                "Body of " + title, status, assignee, requester, at, at);
        return id;
    }

    /** @return a new OPEN ticket created now (its title is {@code title}) */
    public UUID ticket(UUID team, UUID requester, UUID assignee, String title) {
        return ticket(team, requester, assignee, title, "OPEN", Instant.now());
    }

    /**
     * Inserts a ledger row directly (no queue job), for tests that need a task in a given state
     * without running it. A COMPLETED export gets {@code csv} as its result, kept for 24 h.
     *
     * @param kind    EXPORT or REMINDER
     * @param scope   SELF or TEAM
     * @param status  WAITING, COMPLETED or FAILED (RUNNING needs a lease: not offered)
     * @param filters the kind's stored input as JSON text
     * @param csv     result bytes for a COMPLETED export, else null
     * @return the task id
     */
    public UUID task(UUID team, UUID owner, String kind, String scope, String status, String filters, byte[] csv) {
        if ("RUNNING".equals(status)) {
            throw new IllegalArgumentException("a RUNNING row needs a lease; create it through the processor");
        }
        UUID id = UUID.randomUUID();
        OffsetDateTime now = utc(Instant.now());
        boolean completed = "COMPLETED".equals(status);
        UUID resultRun = csv == null ? null : UUID.randomUUID();
        exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts, progress,"
                + " dispatched_at, run_at, last_error, result_execution_id, result_size, result_sha256, result_summary,"
                + " expires_at, created_at, updated_at)"
                + " VALUES (?, ?, ?, ?, ?, ?::jsonb, ?, 0, ?, ?, ?, ?, ?, ?, ?, encode(sha256(?::bytea), 'hex'), ?, ?, ?, ?)",
                id, kind, team, owner, scope, filters, status, "WAITING".equals(status) ? 0 : 1, completed ? 100 : 0,
                "WAITING".equals(status) ? null : now, now,
                "FAILED".equals(status) ? "Test failure." : null, resultRun, csv == null ? null : csv.length, csv,
                csv == null ? null : "test result", completed && csv != null ? now.plusHours(24) : null, now, now);
        if (csv != null) {
            exec("INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes) VALUES (?, ?, 0, ?)", id, resultRun, csv);
        }
        return id;
    }

    /** @return a COMPLETED export of {@code scope} owned by {@code owner}, with a small CSV */
    public UUID completedExport(UUID team, UUID owner, String scope) {
        return task(team, owner, "EXPORT", scope, "COMPLETED", "{\"timeZone\":\"UTC\"}",
                "\uFEFFid,title\r\n".getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Inserts a schedule directly (issue 31): {@code 0 9 * * MON} in Asia/Shanghai, version 1; enabled ones have their
     * next slot a day ahead (the sweep of a deployment with timers off never reaches it).
     *
     * @param params the kind's stored parameters as JSON text
     * @return its id
     */
    public UUID schedule(UUID team, UUID owner, String kind, String scope, String params, boolean enabled) {
        UUID id = UUID.randomUUID();
        OffsetDateTime now = utc(Instant.now());
        exec("INSERT INTO task_schedule (id, team_id, owner_id, name, kind, scope, params, cron, time_zone, missed_slots,"
                + " overlap, enabled, next_slot_at, version, created_by, created_at, updated_by, updated_at) VALUES (?, ?, ?,"
                + " 'Fixture schedule', ?, ?, ?::jsonb, '0 9 * * MON', 'Asia/Shanghai', 'RUN_ONCE', 'SKIP', ?, ?, 1, ?, ?, ?, ?)",
                id, team, owner, kind, scope, params, enabled, enabled ? now.plusDays(1) : null, owner, now, owner, now);
        return id;
    }

    /** @return the single value of a one-row, one-column query (null when SQL NULL) */
    public Object value(String sql, Object... args) {
        try (Connection c = connections.open(); PreparedStatement ps = prepare(c, sql, args);
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("no row: " + sql);
            }
            return rs.getObject(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** @return the count a {@code SELECT count(*) ...} query returns */
    public long count(String sql, Object... args) {
        return ((Number) value(sql, args)).longValue();
    }

    /** Runs one statement. */
    public int exec(String sql, Object... args) {
        try (Connection c = connections.open(); PreparedStatement ps = prepare(c, sql, args)) {
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** @return a JDBC connection to the test database (caller closes it) */
    public Connection connection() throws SQLException {
        return connections.open();
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        return ps;
    }

    private static OffsetDateTime utc(Instant at) {
        return OffsetDateTime.ofInstant(at.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }
}
