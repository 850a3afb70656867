/**
 * The task engine on top of the queue, in rooms with arrows one way (top to bottom): {@code web} → {@code admin},
 * {@code schedule}, {@code live} → {@code service} → {@code sweep} → {@code engine} → {@code observe} →
 * {@code fairshare} → {@code idempotency}, {@code ledger} → {@code spi}. The kinds ({@code export},
 * {@code reminder}, {@code digest}) stand beside the engine and import only {@code spi} (and {@code team},
 * {@code platform}, {@code common}); the engine finds them by CDI. docs/architecture.md draws the rooms and says
 * where each rule lives.
 */
package com.teamdesk.tasks.task;
