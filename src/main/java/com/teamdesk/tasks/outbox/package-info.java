/**
 * Issue 54 (R60): notifications that leave the server. A notification's transaction writes its email into the outbox
 * ({@code outbox_message}, in {@code team/JdbcTeamWrites#addNotification}'s statement, fenced by the writer's lease);
 * the relay ({@link com.teamdesk.tasks.outbox.OutboxRelay}) claims due rows under a lease of its own with
 * {@code SKIP LOCKED}, sends them through Jakarta Mail and records each outcome under that lease. Nothing here runs on a
 * request's thread.
 */
package com.teamdesk.tasks.outbox;
