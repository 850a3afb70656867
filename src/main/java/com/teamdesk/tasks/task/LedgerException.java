package com.teamdesk.tasks.task;

import java.sql.SQLException;

/** A ledger statement failed in PostgreSQL (connection lost, constraint, …): a transient error for R11. */
public class LedgerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param what the statement that failed, e.g. {@code progress write} */
    public LedgerException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage(), cause);
    }
}
