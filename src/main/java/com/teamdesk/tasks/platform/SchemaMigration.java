package com.teamdesk.tasks.platform;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;

/**
 * Migrates the schema of the application's datasource ({@link AppDataSource}) with Flyway before any other
 * startup bean runs (timer and worker beans are {@code @DependsOn} this one). Runs outside a
 * JTA transaction: a container-managed singleton's {@code @PostConstruct} is otherwise
 * transactional (PAYARA-NOTES). When {@code teamdesk.demo.seed=true} it also applies the
 * idempotent demo seed ({@code demo/seed.sql}). Flyway gets the datasource itself; the role check and the seed
 * borrow their connection from {@link Jdbc}.
 */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class SchemaMigration {
    /** JNDI name of the application's PostgreSQL datasource ({@link AppDataSource#NAME}; kept for existing lookups). */
    public static final String DATASOURCE = AppDataSource.NAME;

    private static final Logger LOG = Logger.getLogger(SchemaMigration.class.getName());

    @Resource(lookup = DATASOURCE)
    DataSource dataSource;

    @Inject
    Jdbc jdbc;

    @Inject
    @ConfigProperty(name = "teamdesk.demo.seed", defaultValue = "false")
    boolean demoSeed;

    /** The role the pool must connect as (MicroProfile Config: environment, then the WAR's defaults). */
    @Inject
    @ConfigProperty(name = "teamdesk.db.user", defaultValue = "teamdesk")
    String dbUser;

    @PostConstruct
    void migrate() {
        checkRole();
        Flyway flyway = Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .load();
        var result = flyway.migrate();
        // targetSchemaVersion is null when nothing was applied: ask for the version the schema is at.
        var current = flyway.info().current();
        String version = current == null ? "no version" : current.getVersion().getVersion();
        LOG.info(() -> "Schema migrated: " + result.migrationsExecuted + " migration(s) applied, now at "
                + version);
        if (demoSeed) {
            seedDemoData();
        }
    }

    /**
     * Issue 28: the datasource's {@code ${MPCONFIG=…}} placeholders do not see the WAR's own
     * {@code microprofile-config.properties}, so their defaults are repeated in {@link AppDataSource}. This
     * check makes a disagreement loud: when the pool's role is not {@code teamdesk.db.user}, the deployment
     * fails with a message saying so (and {@code /health} answers 503) instead of creating every table owned
     * by whatever role the connection happened to get.
     *
     * @throws IllegalStateException when the roles differ or PostgreSQL cannot be asked
     */
    void checkRole() {
        try {
            String role = jdbc.withConnection(c -> {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT current_user")) {
                    rs.next();
                    return rs.getString(1);
                }
            });
            if (!role.equals(dbUser)) {
                throw new IllegalStateException("The datasource connected to PostgreSQL as role '" + role
                        + "', but teamdesk.db.user (TEAMDESK_DB_USER) is '" + dbUser + "'. Set TEAMDESK_DB_USER and"
                        + " TEAMDESK_DB_PASSWORD in the environment of the server; nothing was migrated.");
            }
            LOG.info(() -> "Datasource connects as role " + role);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL could not be asked for the datasource's role: " + e.getMessage(), e);
        }
    }

    private void seedDemoData() {
        try (InputStream in = SchemaMigration.class.getClassLoader().getResourceAsStream("demo/seed.sql")) {
            if (in == null) {
                throw new IllegalStateException("demo/seed.sql is missing from the WAR");
            }
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            jdbc.withConnection(c -> {
                try (Statement st = c.createStatement()) {
                    return st.execute(sql);
                }
            });
            LOG.info("Demo data seeded (idempotent)");
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("Demo seed failed: " + e.getMessage(), e);
        }
    }
}
