/**
 * The task engine on top of the queue: the ledger ({@link com.teamdesk.tasks.task.BackgroundTask}
 * rows behind {@link com.teamdesk.tasks.task.JdbcTaskLedger}, every write one conditional statement
 * with its count checked), the lease ({@link com.teamdesk.tasks.task.Lease}, fencing token
 * {@code executionId}), the processor that claims a run and classifies its errors
 * ({@link com.teamdesk.tasks.task.TaskProcessor}, R7-R12), the application service
 * ({@link com.teamdesk.tasks.task.TaskService}: create, read; {@link com.teamdesk.tasks.task.TaskRuns}: retry,
 * cancel), and the EJB timers for dispatch, stall recovery and reconciliation (R18-R20,
 * {@link com.teamdesk.tasks.task.TaskTimers}, the work in {@link com.teamdesk.tasks.task.SweepWork}). A task kind is one
 * {@link com.teamdesk.tasks.task.TaskKindHandler} bean in its own package ({@code export},
 * {@code reminder}, {@code digest}); {@link com.teamdesk.tasks.task.TaskKinds} finds them, checked at startup.
 * Every execution is on the record ({@link com.teamdesk.tasks.task.TaskExecution}, R43), written by the database
 * in the lease's own statements; {@link com.teamdesk.tasks.task.ExecutionOutcome} names how one ended.
 */
package com.teamdesk.tasks.task;
