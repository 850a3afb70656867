/**
 * The maintenance services, one file each, run by the EJB timers of
 * {@link com.teamdesk.tasks.task.sweep.TaskTimers} (R28): stall recovery and reconciliation
 * ({@link com.teamdesk.tasks.task.sweep.TaskRecovery}, R19-R20), ledger retention
 * ({@link com.teamdesk.tasks.task.sweep.LedgerRetention}, R29), the work of one tick
 * ({@link com.teamdesk.tasks.task.sweep.SweepWork}), the operators' pause flags
 * ({@link com.teamdesk.tasks.task.sweep.TimerPauses}) and the instances' reports
 * ({@link com.teamdesk.tasks.task.sweep.TimerReports}).
 *
 * <p>Arrows: imports {@code engine} (dispatch), {@code ledger}, {@code fairshare}, {@code idempotency},
 * {@code observe}; imported by {@code admin}, {@code schedule} (a due-task source) and {@code web}.
 */
package com.teamdesk.tasks.task.sweep;
