package com.teamdesk.tasks.task.spi;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Binds a kind's placeholders in a statement the ledger runs ({@link ExecutionLedger}). */
@FunctionalInterface
public interface Binder {
    /** Binds nothing. */
    Binder NONE = (c, ps, first) -> first;

    /**
     * @param c     the statement's connection (for {@link Connection#createArrayOf})
     * @param first the index of the first placeholder to bind (1-based)
     * @return the index after the last one bound
     */
    int bind(Connection c, PreparedStatement ps, int first) throws SQLException;
}
