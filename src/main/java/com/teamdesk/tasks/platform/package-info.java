/**
 * Wiring to the platform: the PostgreSQL datasource, Flyway migrations (and the optional demo
 * seed) at startup, the injected {@link java.time.Clock}, and the Redis client and queue
 * handles. No business rules live here.
 */
package com.teamdesk.tasks.platform;
