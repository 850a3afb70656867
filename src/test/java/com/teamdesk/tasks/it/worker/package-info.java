/**
 * T3 of {@code SPEC.md}: the engine with REAL queue workers, in the server, against the real
 * PostgreSQL and Redis (rules R6, R7, R9-R12, R19-R21).
 *
 * <p>{@link com.teamdesk.tasks.it.worker.RealWorkerIT} builds its own {@link com.teamdesk.tasks.queue.Worker}
 * instances (A and B) with the production {@link com.teamdesk.tasks.task.engine.TaskProcessor} bean and the
 * production {@link com.teamdesk.tasks.task.engine.TaskQueueListener}, on the same Redis prefix and queue as the
 * production dispatcher ({@link com.teamdesk.tasks.platform.RedisResources}), on threads of the
 * container's {@code ManagedThreadFactory} (like {@code TaskWorker}). The server's own worker and the EJB
 * timers are switched off for this deployment; the tests call the real sweeps
 * ({@code TaskRecovery.recoverStalled}, {@code TaskDispatcher.dispatchDue}) themselves. Only timing is
 * shortened: lock 1000 ms (renewed every 500 ms), stalled check every 100 ms (on the test's workers) and
 * a 30 ms retry backoff ({@code teamdesk.task.backoff-ms}); production defaults are untouched.
 *
 * <ul>
 * <li>{@link com.teamdesk.tasks.it.worker.WorkerRig} / {@link com.teamdesk.tasks.it.worker.TestWorkers}:
 * start and close real workers on container-managed threads;</li>
 * <li>{@link com.teamdesk.tasks.it.worker.WorkerEvents}: what the workers told their listeners and what the
 * production processor did (observed, not changed), with bounded waits for a sync point;</li>
 * <li>{@link com.teamdesk.tasks.it.worker.LateFailedListener}: holds one job's {@code failed} event until the
 * test lets it through (a late event);</li>
 * <li>{@link com.teamdesk.tasks.it.worker.LedgerWritingFailedListener}: TEST-ONLY re-creation of the old bug
 * (a {@code failed} listener that writes FAILED by {@code taskId+run}), used only to prove the test catches it;</li>
 * <li>{@link com.teamdesk.tasks.it.worker.LogCapture}: the lines a {@code java.util.logging} logger wrote.</li>
 * </ul>
 */
package com.teamdesk.tasks.it.worker;
