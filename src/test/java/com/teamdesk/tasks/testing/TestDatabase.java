package com.teamdesk.tasks.testing;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.regex.Pattern;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The tests' database: {@code TEAMDESK_DB_URL} as role {@code TEAMDESK_DB_USER} / {@code TEAMDESK_DB_PASSWORD}
 * (defaults {@code teamdesk}/{@code teamdesk}), as {@code ./teamdesk test} prepares it. When that role cannot log
 * in to that database, {@link #ensure()} connects to database {@code postgres} as a superuser and creates the
 * role (LOGIN, that password) and the database (owned by the role) where missing, so that {@code mvn verify}
 * works from a clean clone. The superuser is {@code -Dteamdesk.test.admin.user}, else {@code PGUSER}, else the
 * OS user (a {@code root} role over 127.0.0.1 with trust auth on the development machines); its password is
 * {@code PGPASSWORD} if set. Nothing is ever dropped.
 */
public final class TestDatabase {

    private static final Pattern PLAIN_NAME = Pattern.compile("[a-z_][a-z0-9_]*");
    private static boolean ready;

    private TestDatabase() {
    }

    /** @return {@code TEAMDESK_DB_URL}; fails when it is not set */
    public static String url() {
        return required("TEAMDESK_DB_URL");
    }

    /** @return the test role's name ({@code TEAMDESK_DB_USER}, default {@code teamdesk}) */
    public static String user() {
        return env("TEAMDESK_DB_USER", "teamdesk");
    }

    /** @return the test role's password ({@code TEAMDESK_DB_PASSWORD}, default {@code teamdesk}) */
    public static String password() {
        return env("TEAMDESK_DB_PASSWORD", "teamdesk");
    }

    /**
     * Points {@code ds} at the test database ({@link #ensure()} first), creates the empty schema
     * {@code schema} there and makes it the data source's current schema: a private schema for one test
     * class, which the caller then migrates.
     *
     * @param ds     a new data source (a subclass may add session settings)
     * @param schema a plain lower-case name not in use
     * @return {@code ds}
     * @throws SQLException when the schema cannot be created
     */
    public static <T extends PGSimpleDataSource> T inNewSchema(T ds, String schema) throws SQLException {
        ensure();
        ds.setURL(url());
        ds.setUser(user());
        ds.setPassword(password());
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + plainName(schema));
        }
        ds.setCurrentSchema(schema);
        return ds;
    }

    /**
     * Makes sure the test role can log in to the test database, creating role and database when missing.
     * Idempotent; does the work once per JVM.
     *
     * @throws IllegalStateException when PostgreSQL cannot be reached, or the role and database are missing
     *         and no superuser connection can create them
     */
    public static synchronized void ensure() {
        if (ready) {
            return;
        }
        String url = url();
        SQLException appLogin;
        try (Connection c = DriverManager.getConnection(url, user(), password())) {
            ready = c.isValid(5);
            return;
        } catch (SQLException e) {
            appLogin = e;
        }
        URI uri = URI.create(url.substring("jdbc:".length()));
        String database = uri.getPath().substring(1);
        String adminUrl = "jdbc:postgresql://" + uri.getHost() + ":" + (uri.getPort() < 0 ? 5432 : uri.getPort())
                + "/postgres";
        String admin = System.getProperty("teamdesk.test.admin.user", env("PGUSER", System.getProperty("user.name")));
        Properties props = new Properties();
        props.setProperty("user", admin);
        props.setProperty("password", env("PGPASSWORD", ""));
        try (Connection c = DriverManager.getConnection(adminUrl, props)) {
            createRoleIfMissing(c, plainName(user()), password());
            createDatabaseIfMissing(c, plainName(database), plainName(user()));
        } catch (SQLException e) {
            IllegalStateException failure = new IllegalStateException("Test database: role " + user()
                    + " cannot log in to " + url + " (" + appLogin.getMessage() + "), and connecting as superuser "
                    + admin + " to " + adminUrl + " to create them failed (" + e.getMessage() + "). Is PostgreSQL"
                    + " running? Set -Dteamdesk.test.admin.user (or PGUSER/PGPASSWORD) to a superuser, or create"
                    + " them by hand, or run ./teamdesk test.", e);
            failure.addSuppressed(appLogin);
            throw failure;
        }
        try (Connection c = DriverManager.getConnection(url, user(), password())) {
            ready = c.isValid(5);
        } catch (SQLException e) {
            throw new IllegalStateException("Test database " + database + " and role " + user() + " exist, but the"
                    + " role cannot log in over " + url + " (pg_hba.conf? password?): " + e.getMessage(), e);
        }
    }

    private static void createRoleIfMissing(Connection admin, String role, String password) throws SQLException {
        if (exists(admin, "SELECT 1 FROM pg_roles WHERE rolname = ?", role)) {
            return;
        }
        try (Statement st = admin.createStatement()) {
            st.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + password.replace("'", "''") + "'");
        } catch (SQLException e) {
            if (!"42710".equals(e.getSQLState())) { // duplicate_object: created meanwhile by another run
                throw e;
            }
        }
    }

    private static void createDatabaseIfMissing(Connection admin, String database, String owner) throws SQLException {
        if (exists(admin, "SELECT 1 FROM pg_database WHERE datname = ?", database)) {
            return;
        }
        try (Statement st = admin.createStatement()) {
            st.execute("CREATE DATABASE " + database + " OWNER " + owner);
        } catch (SQLException e) {
            if (!"42P04".equals(e.getSQLState())) { // duplicate_database: created meanwhile by another run
                throw e;
            }
        }
    }

    private static boolean exists(Connection c, String sql, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static String plainName(String name) {
        if (!PLAIN_NAME.matcher(name).matches()) {
            throw new IllegalStateException("'" + name + "' is not a plain lower-case PostgreSQL name:"
                    + " create the test role and database yourself");
        }
        return name;
    }

    private static String required(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException(name + " is not set: run the tests with mvn verify (pom.xml sets it)"
                    + " or ./teamdesk test");
        }
        return v;
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }
}
