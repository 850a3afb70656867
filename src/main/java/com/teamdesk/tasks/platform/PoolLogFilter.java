package com.teamdesk.tasks.platform;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.MissingResourceException;
import java.util.ResourceBundle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.logging.Filter;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Holds back Payara's connection-pool log lines that repeat for every failed allocation while a condition holds
 * (R35: while the ledger's breaker is open), and counts them by message id for the line that ends the outage.
 *
 * <p>A {@link java.util.logging.Filter} on each of {@link #LOGGERS}: a logger's filter is consulted only for
 * records logged on that very logger, so the names are the ones the lines carry (checked in a fault run's log).
 * Payara logs a resource-bundle key ({@code poolmgr.get_connection_failure}), not the text: the id
 * ({@code RAR5117}) is in the logger's bundle, which the console formatter also reads, so the filter resolves the
 * key the same way before matching. A logger is filtered only once it exists: one created here first would lack
 * Payara's bundle, and the console would print bare keys; {@link #install()} is called again when an outage
 * begins, by which time the loggers of the failing calls exist.
 */
public final class PoolLogFilter {
    /**
     * The loggers of the pool's per-allocation lines: the allocator (RAR5038), the connection manager (RAR5117),
     * the JDBC resource adapter (RAR5114, RAR7115) and the transaction manager (DTX5007, a transaction cut with
     * its connection).
     */
    public static final List<String> LOGGERS = List.of(
            "javax.enterprise.resource.resourceadapter.com.sun.enterprise.resource.allocator",
            "javax.enterprise.resource.resourceadapter.com.sun.enterprise.connectors",
            "javax.enterprise.resource.resourceadapter.com.sun.gjc.spi",
            "javax.enterprise.resource.resourceadapter.com.sun.gjc.spi.jdbc40",
            "javax.enterprise.resource.jta.com.sun.enterprise.transaction");
    /** The message ids held back, as the formatted line begins ({@code "RAR5117 : Failed to obtain…"}). */
    public static final List<String> MESSAGE_IDS = List.of("RAR5038", "RAR5117", "RAR5114", "RAR7115", "DTX5007");

    private final List<String> loggerNames;
    private final BooleanSupplier holding;
    private final Map<String, AtomicLong> held = new LinkedHashMap<>();
    private final Map<Logger, Filter> replaced = new HashMap<>();

    /**
     * @param loggerNames the loggers to filter ({@link #LOGGERS} in production)
     * @param holding     true while lines are to be held back; called on the logging thread, must not log
     */
    public PoolLogFilter(List<String> loggerNames, BooleanSupplier holding) {
        this.loggerNames = List.copyOf(loggerNames);
        this.holding = holding;
        for (String id : MESSAGE_IDS) {
            held.put(id, new AtomicLong());
        }
    }

    /**
     * Puts the filter on every logger of the list that exists and does not carry it yet (any filter already there
     * still decides the lines not held back); never creates a logger. Idempotent.
     *
     * @return how many of the loggers carry the filter now
     */
    public int install() {
        synchronized (replaced) {
            for (String name : loggerNames) {
                Logger logger = LogManager.getLogManager().getLogger(name);
                if (logger != null && !(logger.getFilter() instanceof Hold)) {
                    replaced.put(logger, logger.getFilter());
                    logger.setFilter(new Hold(logger, logger.getFilter()));
                }
            }
            return replaced.size();
        }
    }

    /** Gives every filtered logger its previous filter back. */
    public void uninstall() {
        synchronized (replaced) {
            replaced.forEach((logger, previous) -> {
                if (logger.getFilter() instanceof Hold) {
                    logger.setFilter(previous);
                }
            });
            replaced.clear();
        }
    }

    /** Forgets what was held back so far (the start of an outage). */
    public void reset() {
        held.values().forEach(c -> c.set(0));
    }

    /**
     * Reads and resets the counts.
     *
     * @return the lines held back since the last {@link #reset()} or drain, by message id, ids with none left out,
     *         in the order of {@link #MESSAGE_IDS}
     */
    public Map<String, Long> drain() {
        Map<String, Long> counts = new LinkedHashMap<>();
        held.forEach((id, c) -> {
            long n = c.getAndSet(0);
            if (n > 0) {
                counts.put(id, n);
            }
        });
        return counts;
    }

    /**
     * @return the id of {@link #MESSAGE_IDS} the record's text begins with, its key resolved through the record's or
     *         else the logger's resource bundle as the console formatter does; null for any other record
     */
    static String messageId(LogRecord record, Logger logger) {
        String text = record.getMessage();
        if (text == null) {
            return null;
        }
        ResourceBundle bundle = record.getResourceBundle() != null ? record.getResourceBundle()
                : logger.getResourceBundle();
        if (bundle != null) {
            try {
                text = bundle.getString(text);
            } catch (MissingResourceException e) {
                // not a key: the text itself
            }
        }
        String stripped = text.strip();
        for (String id : MESSAGE_IDS) {
            if (stripped.startsWith(id)) {
                return id;
            }
        }
        return null;
    }

    /** The filter on one logger: holds back and counts a pool line while {@link #holding}; else the previous one decides. */
    private final class Hold implements Filter {
        private final Logger logger;
        private final Filter previous;

        Hold(Logger logger, Filter previous) {
            this.logger = logger;
            this.previous = previous;
        }

        @Override
        public boolean isLoggable(LogRecord record) {
            if (holding.getAsBoolean()) {
                String id = messageId(record, logger);
                if (id != null) {
                    held.get(id).incrementAndGet();
                    return false;
                }
            }
            return previous == null || previous.isLoggable(record);
        }
    }
}
