package com.teamdesk.tasks.platform;

import jakarta.annotation.sql.DataSourceDefinition;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;

/**
 * Defines the application's PostgreSQL datasource, {@value #NAME}: URL, user and password from
 * MicroProfile Config ({@code teamdesk.db.*}, environment {@code TEAMDESK_DB_*}), a pool of
 * {@value #MIN_POOL}..{@value #MAX_POOL} connections. The pool's bound is the connection budget of one
 * instance (docs/scaling.md): {@code teamdesk.http.threads} (32, the HTTP thread pool of
 * {@code server-config/pre-boot-commands.asadmin}) + {@code teamdesk.worker.concurrency} (4) +
 * {@value ConnectionBudget#SWEEPS} for the sweeps (one each; the live listener's connection is outside the pool); {@link ConnectionBudget}
 * warns at startup when the settings need more, or when the instances together exceed PostgreSQL's
 * {@code max_connections}. An annotation attribute is a constant, so the bound cannot follow the
 * settings at run time (docs/decisions.md "Connection budget").
 *
 * <p>Connections are not matched against the request ({@code fish.payara.match-connections=false}): they
 * are all alike, and matching cost CPU on every {@code getConnection} (issue 16).
 *
 * <p>Every borrow validates the connection ({@code fish.payara.connection-validation-method=meta-data}):
 * a connection whose PostgreSQL backend is gone (database restarted, failover, backend terminated)
 * fails at most the one request that finds it dead and is then dropped, so the pool heals by itself
 * without a server restart; the check is local to the driver (no round trip). Requests that fail in
 * between answer 503 {@code service.unavailable} (ProblemExceptionMapper).
 *
 * <p>A bean of its own (no business methods): Payara registers a {@code @DataSourceDefinition} found on
 * a component class of the WAR.
 */
@DataSourceDefinition(
        name = AppDataSource.NAME,
        className = "org.postgresql.ds.PGSimpleDataSource",
        url = "${MPCONFIG=teamdesk.db.url}",
        // The defaults are repeated here: these placeholders do not see META-INF/microprofile-config.properties
        // (issue 28: with only TEAMDESK_DB_URL set the pool connected as the OS user). SchemaMigration checks
        // the role the pool got against teamdesk.db.user and fails the deployment when they differ.
        user = "${MPCONFIG=teamdesk.db.user:teamdesk}",
        password = "${MPCONFIG=teamdesk.db.password:teamdesk}",
        minPoolSize = AppDataSource.MIN_POOL,
        maxPoolSize = AppDataSource.MAX_POOL,
        // Every connection of the pool has the same user and properties, so matching a free connection
        // against the request (Payara's default for a @DataSourceDefinition) only costs CPU on every
        // getConnection (issue 16: ~4 % of the request path's samples in a JFR of P2).
        // Validation on every borrow (docs/decisions.md "Pool healing"): without it the pool keeps handing
        // out a connection whose backend is gone (PostgreSQL restarted, backend terminated) and the
        // server never heals. meta-data calls getMetaData() on the physical connection: pgjdbc checks
        // its closed flag there, no round trip, and a connection that once hit a dead backend is closed.
        // So a dead connection fails at most one request and is then dropped, at no cost per borrow.
        // No validate-atmost-once period (it would hand a known-closed connection out again) and no
        // fail-all-connections (it also destroys the busy connections of in-flight requests).
        properties = {"fish.payara.match-connections=false",
                "fish.payara.is-connection-validation-required=true",
                "fish.payara.connection-validation-method=meta-data"})
@Singleton
@LocalBean
public class AppDataSource {
    /** JNDI name of the application's PostgreSQL datasource. */
    public static final String NAME = "java:app/jdbc/teamdesk";

    /** Connections the pool keeps open when idle. */
    public static final int MIN_POOL = 2;

    /** Connections the pool opens at most: one instance's share of PostgreSQL's {@code max_connections}. */
    public static final int MAX_POOL = 41;
}
