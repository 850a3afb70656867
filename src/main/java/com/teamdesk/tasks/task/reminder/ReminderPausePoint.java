package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.task.spi.PausePoint;

/** The reminder's {@link PausePoint}s inside its one transaction (R14), reached through its execution. */
public enum ReminderPausePoint implements PausePoint {
    /** Reminder: inside the transaction, after the team lock and the read of the lease (R14). */
    REMINDER_AFTER_LEASE_READ,
    /** Reminder: inside the transaction, right after the system event INSERT. */
    REMINDER_AFTER_EVENT_INSERT,
    /** Reminder: inside the transaction, before the lease-checked completion UPDATE. */
    REMINDER_BEFORE_COMPLETE,
    /** Reminder: after the completion UPDATE matched, still inside the transaction (its row lock held). */
    REMINDER_AFTER_COMPLETE
}
