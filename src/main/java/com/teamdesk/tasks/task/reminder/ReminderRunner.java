package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.Execution;
import com.teamdesk.tasks.task.TaskKind;
import com.teamdesk.tasks.task.TaskRejected;
import com.teamdesk.tasks.task.TaskRejected.Reason;
import com.teamdesk.tasks.task.TaskRunner;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Runs a REMINDER (R14): the claim happened outside the team lock (in the processor); here the
 * whole chain runs in {@link ReminderTransaction}, inside a transaction begun by
 * {@link Transactions} on this worker thread (an EJB {@code REQUIRES_NEW} boundary: the only kind
 * Payara enlists connections in on these threads, docs/reminders.md), then progress 100 is
 * reported to the queue (R12: if only that report fails, the ledger stays COMPLETED).
 */
@ApplicationScoped
public class ReminderRunner implements TaskRunner {

    @Inject
    ReminderTransaction transaction;

    @Inject
    Transactions transactions;

    @Override
    public TaskKind kind() {
        return TaskKind.REMINDER;
    }

    @Override
    public void run(Execution ex) {
        ReminderParams params;
        try {
            params = ReminderParams.fromJson(ex.task().filters());
        } catch (InvalidInputException e) {
            throw new TaskRejected(Reason.INVALID_FILTERS, e.detail());
        }
        transactions.inNewTransaction(TxSite.WORKER, () -> transaction.apply(ex.lease(), ex.task(), params));
        ex.reportCompletedToQueue();
    }
}
