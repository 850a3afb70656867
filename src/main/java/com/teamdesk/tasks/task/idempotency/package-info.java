/**
 * R25: the {@code Idempotency-Key} of a create, retry, cancel or run-now: the request as a fingerprint
 * ({@link com.teamdesk.tasks.task.idempotency.IdempotentRequest}) and its store on PostgreSQL
 * ({@link com.teamdesk.tasks.task.idempotency.IdempotencyKeys}).
 *
 * <p>Arrows: imports {@code ledger} (its exception); imported by the services, schedules, sweeps and {@code web}.
 */
package com.teamdesk.tasks.task.idempotency;
