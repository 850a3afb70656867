package com.teamdesk.tasks.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Combines the completions of a worker's processing slots into one {@code complete} script call (issue 16,
 * P1), by flat combining ({@link FlatCombiner}): a slot that finishes a job queues its completion and tries the combining lock;
 * the slot that gets it (the combiner) sends everything queued so far (at most {@value #MAX_BATCH}) in one
 * round trip, together with a fetch of one next job per finishing slot that wants one, hands each slot its
 * own outcome and wakes it, and on leaving wakes the first slot still queued to combine the next batch.
 * The others wait parked, not in the lock's queue, so a batch wakes all of its slots at once instead of
 * one lock hand-over after another. A lone completion goes out at once (no timer, so latency does not
 * grow); under load the completions that finish while a round trip is in flight share the next one, so
 * the script's fixed cost and the set operations are paid once per batch.
 *
 * <p>Each completion is still checked against its own lock (R6): one lost lock changes nothing for that
 * job and does not affect the others. A Redis error fails every completion of that batch (each is then
 * left to the stalled check, as a single failed completion was).
 */
final class Completer {

    /** Most completions sent in one script call. */
    static final int MAX_BATCH = 64;

    private final QueueStore store;
    private final long lockDurationMs;
    private final FlatCombiner<Request, QueueStore.Finish> combiner;
    /**
     * Held while a batch is sent; package-private so that a test can hold it to make a batch form (and then
     * call {@link #handOver()}, as a combiner does after releasing it).
     */
    final ReentrantLock combining;

    Completer(QueueStore store, long lockDurationMs) {
        this.store = store;
        this.lockDurationMs = lockDurationMs;
        this.combiner = new FlatCombiner<>(MAX_BATCH, this::send);
        this.combining = combiner.combiningLock();
    }

    /** One slot's completion and the lock token for its next job (or null). */
    private record Request(QueueStore.Completion completion, String nextToken) {
    }

    /**
     * Completes {@code job} under its lock, possibly in one script call with other slots' completions.
     *
     * @param job       the finished execution
     * @param progress  progress to record with the completion, 0-100, or -1 to leave it as it is
     * @param nextToken lock token for a next job to fetch in the same call, or null to fetch none
     * @return lock lost (nothing changed), or completed with {@code attemptsMade} and the next job (or null)
     * @throws RuntimeException the Redis error of the batch's script call; the job's state is then unknown
     */
    QueueStore.Finish complete(FetchedJob job, int progress, String nextToken) {
        return combiner.submit(new Request(new QueueStore.Completion(job, progress), nextToken));
    }

    /** Wakes the first queued slot, to combine the next batch ({@link FlatCombiner#handOver()}). */
    void handOver() {
        combiner.handOver();
    }

    /** @return completions waiting for a combiner to send them */
    int queued() {
        return combiner.queued();
    }

    /** @return script calls made so far (each sent one batch) */
    long scriptCalls() {
        return combiner.batches();
    }

    private List<QueueStore.Finish> send(List<Request> batch) {
        List<QueueStore.Completion> completions = new ArrayList<>(batch.size());
        List<String> tokens = new ArrayList<>(batch.size());
        for (Request b : batch) {
            completions.add(b.completion());
            if (b.nextToken() != null) {
                tokens.add(b.nextToken());
            }
        }
        QueueStore.Completions reply = store.completeMany(completions, tokens, lockDurationMs);
        // The i-th fetched job is locked for the i-th token, whether or not its slot's own lock held.
        List<QueueStore.Finish> out = new ArrayList<>(batch.size());
        int fetched = 0;
        for (int i = 0; i < batch.size(); i++) {
            Request b = batch.get(i);
            FetchedJob next = null;
            if (b.nextToken() != null && fetched < reply.next().size()) {
                next = reply.next().get(fetched++);
            }
            out.add(reply.lockLost()[i] ? new QueueStore.Finish(true, 0, false, next)
                    : new QueueStore.Finish(false, b.completion().job().attemptsMade() + 1, false, next));
        }
        return out;
    }
}
