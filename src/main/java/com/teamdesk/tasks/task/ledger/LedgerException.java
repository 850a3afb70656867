package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.platform.Jdbc;
import java.sql.SQLException;

/**
 * A ledger statement failed in PostgreSQL (connection lost, constraint, …): a transient error for R11. Only
 * for the ledger's table, {@code background_task}; other tables' statements fail with
 * {@link com.teamdesk.tasks.platform.TableAccessException}.
 */
public class LedgerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The ledger's table for {@link Jdbc}: its SQL errors throw a {@code LedgerException} naming what failed. */
    public static final Jdbc.Table TABLE = new Jdbc.Table("background_task", (table, what, e) -> new LedgerException(what, e));

    /** @param what the statement that failed, e.g. {@code progress write} */
    public LedgerException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage(), cause);
    }
}
