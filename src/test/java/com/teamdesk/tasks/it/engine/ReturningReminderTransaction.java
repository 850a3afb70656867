package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.task.Lease;
import com.teamdesk.tasks.task.LeaseLost;
import com.teamdesk.tasks.task.reminder.ReminderTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import java.time.Instant;

/**
 * The WRONG variant of the reminder transaction, for one test only: on a lost lease it returns
 * normally instead of throwing. The test proves that this variant commits the side effects, so
 * the production throw is what protects them (R14). Typed to itself: never injected as a
 * {@link ReminderTransaction}.
 */
@ApplicationScoped
@Typed(ReturningReminderTransaction.class)
public class ReturningReminderTransaction extends ReminderTransaction {
    @Override
    protected void complete(Lease lease, Instant now) {
        try {
            super.complete(lease, now);
        } catch (LeaseLost e) {
            // Wrong on purpose: swallowing the lost lease lets the transaction commit.
        }
    }
}
