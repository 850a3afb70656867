/**
 * The REMINDER task kind (R14): notifications, the ticket's version bump, a system event and the
 * task's completion commit in one container-managed JTA transaction, gated by the lease check at
 * commit; a lost lease throws out of the transaction so that all four roll back.
 */
package com.teamdesk.tasks.task.reminder;
