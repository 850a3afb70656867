package com.teamdesk.tasks.task.ledger;

import java.sql.SQLException;

/** A ledger statement failed in PostgreSQL (connection lost, constraint, …): a transient error for R11. */
public class LedgerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param what the statement that failed, e.g. {@code progress write} */
    public LedgerException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage(), cause);
    }

    /** One JDBC call that may fail with an {@link SQLException}. */
    @FunctionalInterface
    public interface Sql<T> {
        /** @return the call's result */
        T run() throws SQLException;
    }

    /**
     * @return what {@code sql} returned
     * @throws LedgerException naming {@code what}, when it failed with an {@link SQLException}
     */
    public static <T> T of(String what, Sql<T> sql) {
        try {
            return sql.run();
        } catch (SQLException e) {
            throw new LedgerException(what, e);
        }
    }
}
