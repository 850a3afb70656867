/**
 * What members ask of their tasks, as application services: create and read
 * ({@link com.teamdesk.tasks.task.service.TaskService}), retry as a new run and cancel
 * ({@link com.teamdesk.tasks.task.service.TaskRuns}), each answer a {@link com.teamdesk.tasks.task.service.Submitted}.
 * Authorization is enforced here, not in {@code web}.
 *
 * <p>Arrows: imports {@code engine}, {@code ledger}, {@code fairshare}, {@code idempotency}, {@code observe},
 * {@code spi}, {@code team}; imported by {@code admin} and {@code web}.
 */
package com.teamdesk.tasks.task.service;
