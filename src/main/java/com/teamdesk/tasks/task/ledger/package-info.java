/**
 * The ledger: the only writer of {@code background_task}. {@link com.teamdesk.tasks.task.ledger.JdbcTaskLedger} owns
 * every state change as a named, lease-checked statement whose count is checked
 * ({@link com.teamdesk.tasks.task.ledger.Fencing}: one rule, one place); the reads of the API and the live streams
 * ({@link com.teamdesk.tasks.task.ledger.TaskReads}); the execution history it writes through V13's trigger
 * ({@link com.teamdesk.tasks.task.ledger.TaskExecution}, {@link com.teamdesk.tasks.task.ledger.ExecutionOutcome}); the
 * circuit breaker in front of it ({@link com.teamdesk.tasks.task.ledger.LedgerBreaker}).
 *
 * <p>Arrows: imports {@code spi} (and {@code team}, {@code platform}); imported by the engine, the sweeps, the
 * services. A kind never imports it: it completes through its {@code Execution}.
 */
package com.teamdesk.tasks.task.ledger;
