package com.teamdesk.tasks.task.spi;

/**
 * A kind's own writes that ride in a ledger transition's statement (issue 16: one statement, one commit), so that
 * they happen exactly when the transition matched: further {@code WITH} clauses, each {@code ", name AS (…)"},
 * that read the rows the transition changed as {@code done(id, result_execution_id)} and write only the kind's own
 * tables (the export's result chunks).
 *
 * @param clauses the clauses, starting with {@code ", "}; empty for none
 * @param args    binds their placeholders, which come after the ledger's
 */
public record OwnWrites(String clauses, Binder args) {
    /** No writes of the kind's own. */
    public static final OwnWrites NONE = new OwnWrites("", Binder.NONE);
}
