package com.teamdesk.tasks.task.export;

import java.sql.SQLException;

/**
 * A statement of the export's own storage failed in PostgreSQL (connection lost, …): a transient error for R11, as
 * the ledger's own errors are (the engine recognises a lost database by the cause, whatever wraps it).
 */
public class ResultStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param what the statement that failed, e.g. {@code read result} */
    public ResultStoreException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage(), cause);
    }

    /** One JDBC call that may fail with an {@link SQLException}. */
    @FunctionalInterface
    interface Sql<T> {
        T run() throws SQLException;
    }

    /**
     * @return what {@code sql} returned
     * @throws ResultStoreException naming {@code what}, when it failed with an {@link SQLException}
     */
    static <T> T of(String what, Sql<T> sql) {
        try {
            return sql.run();
        } catch (SQLException e) {
            throw new ResultStoreException(what, e);
        }
    }
}
