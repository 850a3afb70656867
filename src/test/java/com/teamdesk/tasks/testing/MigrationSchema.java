package com.teamdesk.tasks.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A schema of its own in the test database for a migration test: created on the first {@link #migrate}, migrated
 * by Flyway from {@code classpath:db/migration} up to a version, and dropped with everything in it by
 * {@link #close()} (call it from {@code @AfterEach}). Statements run one at a time in auto-commit.
 */
public final class MigrationSchema implements AutoCloseable {
    private final String name;
    private PGSimpleDataSource db;

    /** @param prefix a plain lower-case name; a random suffix makes the schema's name unique */
    public MigrationSchema(String prefix) {
        this.name = prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** @return the schema's name */
    public String name() {
        return name;
    }

    /**
     * Migrates the schema (creating it first) up to {@code target}, or to the latest version when null.
     *
     * @return a data source whose connections use the schema
     * @throws SQLException when the schema cannot be created
     */
    public PGSimpleDataSource migrate(String target) throws SQLException {
        if (db == null) {
            db = TestDatabase.inNewSchema(new PGSimpleDataSource(), name);
        }
        var config = Flyway.configure().dataSource(db).schemas(name).locations("classpath:db/migration");
        (target == null ? config : config.target(target)).load().migrate();
        return db;
    }

    /** Runs one statement with positional arguments ({@code setObject}). */
    public void exec(String sql, Object... args) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = prepare(c, sql, args)) {
            ps.execute();
        }
    }

    /** @return the first column of every row of a query with positional arguments, as strings */
    public List<String> strings(String sql, Object... args) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.getConnection(); PreparedStatement ps = prepare(c, sql, args);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        return ps;
    }

    /** Drops the schema and everything in it, if it was created. */
    @Override
    public void close() throws SQLException {
        if (db != null) {
            try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA " + name + " CASCADE");
            }
        }
    }
}
