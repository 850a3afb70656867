/**
 * Observability of the engine: metrics on {@code /metrics} ({@link com.teamdesk.tasks.task.observe.TaskMetrics}) and
 * traces through MicroProfile Telemetry ({@link com.teamdesk.tasks.task.observe.TaskTracing}, R45).
 *
 * <p>Arrows: imports {@code fairshare} (its gauges), {@code ledger}, {@code spi}; imported by the engine, the sweeps
 * and the services.
 */
package com.teamdesk.tasks.task.observe;
