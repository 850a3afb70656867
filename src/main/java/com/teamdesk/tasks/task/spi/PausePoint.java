package com.teamdesk.tasks.task.spi;


/**
 * Named places in the production code path of an execution where tests can pause it or inject a
 * fault (see {@link PausePoints}). Each sits right at the statement it names, so a test paused
 * there sees the real database state.
 */
public enum PausePoint {
    /** Right after a successful claim (R7) committed. */
    AFTER_CLAIM,
    /** Right before the lease-checked ledger progress write (R10); a fault here is a failing progress write. */
    BEFORE_PROGRESS_WRITE,
    /** Right after a lease-checked ledger progress write matched (R10); counts the writes an execution made. */
    AFTER_PROGRESS_WRITE,
    /** Export: a batch of tickets was read, before its progress write (R10). */
    EXPORT_AFTER_BATCH_READ,
    /** Export: after the final permission check, before the lease-checked result write (R13). */
    EXPORT_BEFORE_RESULT_WRITE,
    /**
     * Export: holding its permit of the background statements' bound (R48), right before the lease-checked result
     * write; a test held here keeps that permit.
     */
    EXPORT_RESULT_WRITE_PERMIT_HELD,
    /** Reminder: inside the transaction, after the team lock and the read of the lease (R14). */
    REMINDER_AFTER_LEASE_READ,
    /** Reminder: inside the transaction, right after the system event INSERT. */
    REMINDER_AFTER_EVENT_INSERT,
    /** Reminder: inside the transaction, before the lease-checked completion UPDATE. */
    REMINDER_BEFORE_COMPLETE,
    /** Reminder: after the completion UPDATE matched, still inside the transaction (its row lock held). */
    REMINDER_AFTER_COMPLETE,
    /**
     * Any kind whose side effects commit with its completion (issue 29): inside its transaction, after
     * its side effects, right before its lease-checked completion ({@code JdbcTaskLedger.updateUnderLease}).
     */
    BEFORE_COMPLETION,
    /** Before the lease-checked failure report (R11). */
    BEFORE_FAILURE_REPORT,
    /** After the ledger committed COMPLETED, before the final progress-100 report to the queue (R12). */
    BEFORE_FINAL_QUEUE_REPORT
}
