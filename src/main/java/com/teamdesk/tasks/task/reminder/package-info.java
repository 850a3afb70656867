/**
 * The REMINDER task kind (R14): notifications, the ticket's version bump, a system event and the
 * task's completion commit in one container-managed JTA transaction, gated by the lease check at
 * commit; a lost lease throws out of the transaction so that all four roll back.
 * {@link com.teamdesk.tasks.task.reminder.ReminderHandler} is the kind (request and run),
 * {@link com.teamdesk.tasks.task.reminder.ReminderTransaction} the order of the writes and the gate.
 */
package com.teamdesk.tasks.task.reminder;
