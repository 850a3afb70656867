package com.teamdesk.tasks.it.lifecycle;

import com.teamdesk.tasks.it.support.TestData.TestTeam;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.logging.Logger;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A PostgreSQL schema of its own on the shared test database, for servers whose EJB timers run
 * for seconds to minutes: the sweeps are server-wide by design (no team filter), so on the shared
 * schema another server's dispatch or recovery sweep could take this test's rows, and this test's
 * servers could take theirs. Here each server gets {@code currentSchema=<schema>} in its JDBC URL
 * and sees only this schema's tables. Created and migrated with the application's own Flyway
 * migrations; {@link #drop()} removes it. Needs nothing beyond the test role owning the database.
 *
 * <p>A class that needs only the schema registers {@link #perClass()} as an extension: created before
 * its tests, dropped after them.
 */
final class PrivateSchema implements BeforeAllCallback, AfterAllCallback {
    private static final Logger LOG = Logger.getLogger(PrivateSchema.class.getName());
    private String name;
    private String url;
    private String user;
    private String password;

    private PrivateSchema(String name, String url, String user, String password) {
        this.name = name;
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /**
     * @return a schema created before the registering class's tests and dropped after them; use it as
     *         {@code @RegisterExtension static final PrivateSchema data = PrivateSchema.perClass();}
     */
    static PrivateSchema perClass() {
        return new PrivateSchema(null, null, null, null);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws SQLException {
        PrivateSchema created = create();
        name = created.name;
        url = created.url;
        user = created.user;
        password = created.password;
        LOG.info(() -> context.getDisplayName() + ": servers and test data in schema " + name);
    }

    @Override
    public void afterAll(ExtensionContext context) throws SQLException {
        if (name != null) {
            drop();
        }
    }

    /** Creates {@code it_life_<random>} and migrates it. */
    static PrivateSchema create() throws SQLException {
        String base = System.getenv("TEAMDESK_DB_URL");
        if (base == null || base.isBlank()) {
            throw new IllegalStateException("TEAMDESK_DB_URL is not set: run the tests with ./teamdesk test");
        }
        String user = env("TEAMDESK_DB_USER", "teamdesk");
        String password = env("TEAMDESK_DB_PASSWORD", "teamdesk");
        String name = "it_life_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = DriverManager.getConnection(base, user, password); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + name);
        }
        String url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + name;
        Flyway.configure().dataSource(url, user, password).schemas(name).locations("classpath:db/migration").load()
                .migrate();
        return new PrivateSchema(name, url, user, password);
    }

    /** @return the schema's name */
    String name() {
        return name;
    }

    /** @return the JDBC URL a server and the test use ({@code TEAMDESK_DB_URL}) */
    String url() {
        return url;
    }

    /** @return a new connection to the schema (caller closes it) */
    Connection connection() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /** Drops the schema and everything in it. */
    void drop() throws SQLException {
        try (Connection c = connection(); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        }
    }

    /** @return a fresh team with an OWNER, a STAFF, a CUSTOMER, and an outsider owning another team */
    TestTeam newTeam() {
        UUID team = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        String tag = team.toString().substring(0, 8);
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, ?)", team, "it-" + tag, "IT Team " + tag);
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, ?)", other, "it-other-" + tag, "IT Other " + tag);
        TestTeam t = new TestTeam(team, "it-" + tag, "IT Team " + tag, user("owner-" + tag), user("staff-" + tag),
                user("customer-" + tag), user("outsider-" + tag), other);
        exec("INSERT INTO membership (team_id, user_id, role) VALUES (?, ?, 'OWNER')", team, t.owner());
        exec("INSERT INTO membership (team_id, user_id, role) VALUES (?, ?, 'STAFF')", team, t.staff());
        exec("INSERT INTO membership (team_id, user_id, role) VALUES (?, ?, 'CUSTOMER')", team, t.customer());
        exec("INSERT INTO membership (team_id, user_id, role) VALUES (?, ?, 'OWNER')", other, t.outsider());
        return t;
    }

    /**
     * @return a new user of no team, "Operator" {@code ops-<8 hex>}: the operator API's caller, given a token with
     *         the {@code operator} group
     */
    UUID newOperator() {
        UUID ops = UUID.randomUUID();
        exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, 'Operator')", ops,
                "ops-" + ops.toString().substring(0, 8));
        return ops;
    }

    private UUID user(String username) {
        UUID id = UUID.randomUUID();
        exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, ?)", id, username, "User " + username);
        return id;
    }

    /** Runs one statement (autocommit); @return its update count. */
    int exec(String sql, Object... args) {
        try (Connection c = connection(); PreparedStatement ps = prepare(c, sql, args)) {
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** @return the single value of a one-row query (null for SQL NULL) */
    Object value(String sql, Object... args) {
        try (Connection c = connection(); PreparedStatement ps = prepare(c, sql, args); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new IllegalStateException("no row: " + sql);
            }
            return rs.getObject(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** @return the number a one-row, one-column numeric query returns */
    long count(String sql, Object... args) {
        return ((Number) value(sql, args)).longValue();
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        return ps;
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }
}
