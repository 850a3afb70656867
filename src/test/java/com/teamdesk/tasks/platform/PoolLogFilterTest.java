package com.teamdesk.tasks.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.ListResourceBundle;
import java.util.Map;
import java.util.ResourceBundle;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Filter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * R35's quiet log on loggers shaped as Payara's: a logger whose {@code getResourceBundle()} is overridden (as
 * {@code com.sun.logging.LogDomainsLogger} does), logging bundle keys such as {@code poolmgr.get_connection_failure}
 * whose text begins with the message id. The old filter matched the id against the key and held back nothing.
 */
class PoolLogFilterTest {
    /** Keys and texts as in Payara 6.2025.10's connectors-runtime and __ds_jdbc_ra LogStrings.properties. */
    static final class PayaraStrings extends ListResourceBundle {
        @Override
        protected Object[][] getContents() {
            return new Object[][] {
                {"poolmgr.create_resource_error", "RAR5038:Unexpected exception while creating resource for pool {0}."},
                {"poolmgr.get_connection_failure", "RAR5117 : Failed to obtain/create connection from connection pool"},
                {"jdbc.exc_get_conn", "RAR5114 : Error allocating connection : [{0}]"},
                {"jdbc.markedForRemoval_conClosed", "RAR7111: destroying connection during connectionClosed"},
            };
        }
    }

    /** A logger that carries its bundle as Payara's {@code LogDomainsLogger} does: by override, not by name. */
    static final class PayaraLogger extends Logger {
        private final ResourceBundle bundle = new PayaraStrings();

        PayaraLogger(String name) {
            super(name, null);
        }

        @Override
        public ResourceBundle getResourceBundle() {
            return bundle;
        }
    }

    private final AtomicBoolean open = new AtomicBoolean();
    private final List<String> published = new ArrayList<>();
    private final String name = "test.pool." + UUID.randomUUID();
    private final String later = name + ".later";
    private Logger logger;
    private PoolLogFilter filter;

    @BeforeEach
    void setUp() {
        logger = payaraLogger(name);
        filter = new PoolLogFilter(List.of(name, later), open::get);
    }

    @AfterEach
    void tearDown() {
        filter.uninstall();
    }

    private Logger payaraLogger(String loggerName) {
        PayaraLogger l = new PayaraLogger(loggerName);
        LogManager.getLogManager().addLogger(l);
        Logger registered = LogManager.getLogManager().getLogger(loggerName);
        registered.setUseParentHandlers(false);
        registered.addHandler(new Handler() {
            @Override
            public void publish(LogRecord r) {
                published.add(r.getLoggerName() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
        return registered;
    }

    private void failedAllocation(Logger l) {
        l.log(Level.WARNING, "poolmgr.create_resource_error", "pool");
        l.log(Level.WARNING, "poolmgr.get_connection_failure", "pool");
        l.log(Level.WARNING, "jdbc.exc_get_conn", "Connection refused");
    }

    @Test
    void whileHoldingThePoolLinesAreHeldBackAndCountedByIdAndOthersStillPass() {
        assertEquals(1, filter.install());
        open.set(true);
        for (int i = 0; i < 4; i++) {
            failedAllocation(logger);
        }
        logger.warning("jdbc.markedForRemoval_conClosed"); // another pool line: not one of the outage's
        logger.warning("RAR5117 : a text logged without a key"); // an id in the text itself is matched too
        assertEquals(List.of(name + " jdbc.markedForRemoval_conClosed"), published);
        assertEquals(Map.of("RAR5038", 4L, "RAR5117", 5L, "RAR5114", 4L), filter.drain());
        assertEquals(Map.of(), filter.drain(), "drained");
    }

    @Test
    void whileNotHoldingEveryLinePassesAndNothingIsCounted() {
        filter.install();
        failedAllocation(logger);
        assertEquals(3, published.size(), published.toString());
        assertEquals(Map.of(), filter.drain());
    }

    @Test
    void installNeverCreatesALoggerAndTakesOneThatAppearsLater() {
        assertEquals(1, filter.install());
        assertNull(LogManager.getLogManager().getLogger(later), "a logger created by the filter would lack Payara's bundle");
        Logger appeared = payaraLogger(later);
        assertEquals(2, filter.install());
        assertEquals(2, filter.install(), "idempotent");
        open.set(true);
        failedAllocation(appeared);
        assertEquals(List.of(), published);
        assertEquals(Map.of("RAR5038", 1L, "RAR5117", 1L, "RAR5114", 1L), filter.drain());
    }

    @Test
    void aFilterAlreadyThereStillDecidesAndIsGivenBack() {
        Filter dropsAll = r -> false;
        logger.setFilter(dropsAll);
        filter.install();
        logger.warning("jdbc.markedForRemoval_conClosed");
        assertEquals(List.of(), published);
        filter.uninstall();
        assertSame(dropsAll, logger.getFilter());
    }

    @Test
    void resetForgetsWhatWasHeldBefore() {
        filter.install();
        open.set(true);
        failedAllocation(logger);
        filter.reset();
        logger.log(Level.WARNING, "jdbc.exc_get_conn", "x");
        assertEquals(Map.of("RAR5114", 1L), filter.drain());
    }
}
