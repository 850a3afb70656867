package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.platform.Jdbc;
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

    /** @return {@code table} for {@link Jdbc}, its SQL errors thrown as a {@code ResultStoreException} naming what failed */
    static Jdbc.Table on(String table) {
        return new Jdbc.Table(table, (name, what, e) -> new ResultStoreException(what, e));
    }
}
