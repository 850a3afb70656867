/**
 * The SLA_ESCALATION kind (issue 53, R59): a ticket's promise escalated at its warning and at its breach, each a task
 * the clock's change starts ({@link com.teamdesk.tasks.task.escalation.EscalationScheduler}), fenced twice — by the
 * clock's version (the promise's fencing token: a stale instant completes as superseded and touches nothing) and by
 * the run's lease (side effects and completion in one JTA transaction a lost lease rolls back). It reaches the engine
 * only through {@code task/spi}.
 */
package com.teamdesk.tasks.task.escalation;
