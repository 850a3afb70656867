/**
 * A generic Redis job queue modelled on BullMQ: {@link com.teamdesk.tasks.queue.Queue} (producer and
 * operator look-ups) and {@link com.teamdesk.tasks.queue.Worker} (consumer) over one storage layer in which
 * every state transition is ONE atomic Lua script.
 *
 * <p>What lives here: job ids and duplicate detection (R2), attempts with exponential backoff (R4),
 * retention of finished records by age and count, also while idle (R5), per-job locks with a token that
 * every transition checks, lock renewal and the stalled check (R6), worker heartbeats and graceful close
 * (R22), and local worker events for listeners that must never break the worker (R21).
 *
 * <p>The worker's parts: {@code FetchLoop}, {@code ProcessingSlots} (run a job, record its outcome),
 * {@code SlotPool} (free processing slots), {@code LockRenewal}, {@code Housekeeping}
 * (stalled check and retention trim), {@code Heartbeat}, {@code WorkerListeners} and {@code RunningJob} (one
 * execution as the processor sees it); {@code QueueStore} calls the worker's scripts, {@code QueueRecords}
 * the producer's and the operator's, {@code QueueReplies} decodes their replies; {@code Completer} combines the
 * slots' completions by flat combining ({@link com.teamdesk.tasks.queue.FlatCombiner}, which the task ledger
 * uses for its claims and export completions too). The queue <em>fetches</em> a job
 * (and locks it); "claim" is the task ledger's word (R7), not the queue's.
 *
 * <p>The package knows nothing of the product that uses it: a job is an id plus an opaque string payload.
 * All timestamps stored in Redis come from the Redis server clock ({@code TIME}), so several JVMs with
 * skewed clocks agree on due times, lock expiry and retention. Key layout: {@link
 * com.teamdesk.tasks.queue.QueueKeys}; full description of keys and scripts: {@code docs/queue.md}.
 */
package com.teamdesk.tasks.queue;
