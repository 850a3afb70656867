package com.teamdesk.tasks.platform;

import java.sql.SQLException;

/**
 * A statement on a table failed ({@link Jdbc}): PostgreSQL answered with an error (the {@link SQLException}
 * is the cause, so {@link DatabaseUnavailable} still recognises a lost database), or a write changed another
 * number of rows than it must. The message names the table and what was attempted; never the arguments.
 * An {@link IllegalStateException}, as the team package's stores have always documented their failures.
 * The ledger's own table, {@code background_task}, reports SQL errors as the ledger's exception instead.
 */
public class TableAccessException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final String what;

    /**
     * A statement failed in PostgreSQL.
     *
     * @param table the table it was about, e.g. {@code task_schedule}
     * @param what  what was attempted, e.g. {@code update schedule}
     */
    public TableAccessException(String table, String what, SQLException cause) {
        super(what + " failed on " + table + ": " + cause.getMessage(), cause);
        this.table = table;
        this.what = what;
    }

    /**
     * A write changed {@code count} rows where it must change {@code expected}.
     *
     * @param table the table it was about
     * @param what  what was attempted
     */
    public TableAccessException(String table, String what, int count, int expected) {
        super(what + " on " + table + " matched " + count + " rows, expected " + expected);
        this.table = table;
        this.what = what;
    }

    /** @return the table the failed statement was about */
    public String table() {
        return table;
    }

    /** @return what was attempted */
    public String what() {
        return what;
    }
}
