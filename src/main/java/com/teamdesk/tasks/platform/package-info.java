/**
 * Wiring to the platform: the PostgreSQL datasource, Flyway migrations (and the optional demo
 * seed) at startup, the injected {@link java.time.Clock}, the Redis client and queue
 * handles, and the filter that holds back Payara's connection-pool log lines during an outage
 * ({@link com.teamdesk.tasks.platform.PoolLogFilter}). No business rules live here.
 */
package com.teamdesk.tasks.platform;
