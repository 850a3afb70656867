/**
 * The engine: the worker inside the server ({@link com.teamdesk.tasks.task.engine.TaskWorker}, R22), the processor
 * that claims a run, runs its kind and classifies the outcome ({@link com.teamdesk.tasks.task.engine.TaskProcessor},
 * R7-R12, with {@link com.teamdesk.tasks.task.engine.RetryPolicy} and
 * {@link com.teamdesk.tasks.task.engine.FailureCause}), dispatch to the queue and reconciliation
 * ({@link com.teamdesk.tasks.task.engine.TaskDispatcher}, R18, R20), the registered kinds
 * ({@link com.teamdesk.tasks.task.engine.TaskKinds}), the queue's listeners and the health check.
 *
 * <p>Arrows: imports {@code ledger}, {@code fairshare}, {@code observe}, {@code spi}; imported by the sweeps,
 * services, schedules, admin and {@code web}. It finds the kinds by CDI: it imports none of them.
 */
package com.teamdesk.tasks.task.engine;
