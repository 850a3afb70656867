/**
 * Test environment shared by every tier: the test database and role ({@link com.teamdesk.tasks.testing.TestDatabase}),
 * and the check that PostgreSQL and Redis answer before the integration tests start
 * ({@link com.teamdesk.tasks.testing.TestServices}). Connection settings come from the environment
 * ({@code TEAMDESK_DB_URL}, ...), which {@code pom.xml} sets with defaults an exported variable overrides.
 */
package com.teamdesk.tasks.testing;
