package com.teamdesk.tasks.web;

import com.teamdesk.tasks.platform.DatabaseUnavailable;
import com.teamdesk.tasks.task.ledger.LedgerException;
import jakarta.ejb.EJBException;
import jakarta.ejb.TransactionRolledbackLocalException;
import jakarta.persistence.PersistenceException;
import jakarta.resource.ResourceException;
import jakarta.ws.rs.core.Response;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lost or unreachable database, however wrapped, answers 503 {@code service.unavailable} with
 * {@code Retry-After} and no exception text; other failures stay 500 {@code internal}.
 */
class DatabaseUnavailableMappingTest {
    private static final String SECRET = "FATAL: terminating connection due to administrator command (secret-host)";

    /** The mapper's logger, quiet while the mapper logs the failures these tests make on purpose. */
    private static final Logger MAPPER_LOG = Logger.getLogger(ProblemExceptionMapper.class.getName());
    private static Level level;

    private final ProblemExceptionMapper mapper = new ProblemExceptionMapper();

    @BeforeAll
    static void quiet() {
        level = MAPPER_LOG.getLevel();
        MAPPER_LOG.setLevel(Level.OFF);
    }

    @AfterAll
    static void restore() {
        MAPPER_LOG.setLevel(level);
    }

    @Test
    void lostConnectionsAnswer503WithRetryAfter() {
        Throwable[] lost = {
            new SQLException(SECRET, "57P01"),
            new SQLException(SECRET, "57P02"),
            new SQLException(SECRET, "57P03"),
            new SQLException(SECRET, "08006"),
            new SQLTransientConnectionException(SECRET, "08001"),
            new EJBException(new PersistenceException(SECRET, new SQLException(SECRET, "08003"))),
            new TransactionRolledbackLocalException(SECRET, new LedgerException("progress write",
                    new SQLException(SECRET, "57P01"))),
            new RuntimeException(SECRET, new SQLException(SECRET, "08006", new ResourceException(SECRET))),
            new IllegalStateException(SECRET, new ResourceException(SECRET)),
            chained(new SQLException(SECRET, "40001"), new SQLException(SECRET, "08006")),
        };
        for (Throwable e : lost) {
            Response r = mapper.toResponse(e);
            assertEquals(503, r.getStatus(), e.toString());
            assertEquals("application/problem+json", r.getMediaType().toString());
            assertEquals(String.valueOf(ProblemExceptionMapper.RETRY_AFTER_SECONDS), r.getHeaderString("Retry-After"));
            String body = String.valueOf(r.getEntity());
            assertTrue(body.contains("\"code\":\"service.unavailable\""), body);
            assertFalse(body.contains("secret") || body.contains("FATAL") || body.contains("SQL"), body);
        }
    }

    @Test
    void otherDatabaseErrorsStayInternal() {
        Throwable[] other = {
            new SQLException("duplicate key", "23505"),
            new EJBException(new PersistenceException(new SQLException("deadlock", "40P01"))),
            new SQLException("no state"),
            new IllegalStateException("bug"),
        };
        for (Throwable e : other) {
            Response r = mapper.toResponse(e);
            assertEquals(500, r.getStatus(), e.toString());
            assertTrue(String.valueOf(r.getEntity()).contains("\"code\":\"internal\""));
            assertEquals(null, r.getHeaderString("Retry-After"));
        }
    }

    @Test
    void aCauseCycleEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertFalse(DatabaseUnavailable.isCause(a));
        assertFalse(DatabaseUnavailable.isCause(null));
    }

    private static SQLException chained(SQLException first, SQLException next) {
        first.setNextException(next);
        return first;
    }
}
