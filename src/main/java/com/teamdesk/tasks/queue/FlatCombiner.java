package com.teamdesk.tasks.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Combines requests of concurrent threads into batches by flat combining (issue 16): a thread queues its
 * request and tries the combining lock; the one that gets it (the combiner) sends everything queued so
 * far (at most {@code maxBatch}) with one call of the batch function, hands each thread its own result
 * and wakes it, and on leaving wakes the first thread still queued to combine the next batch. A lone
 * request goes out at once (no timer, so latency does not grow); under load the requests that arrive
 * while a batch is in flight share the next one. Used by the worker's completions ({@code Completer}) and
 * by the task ledger's claims and export completions.
 *
 * <p>The batch function runs on the combiner's thread, whichever that is: it must not depend on the
 * calling thread's context (e.g. a JTA transaction). If it throws, every request of that batch fails
 * with that exception.
 *
 * @param <T> a request
 * @param <R> its result
 */
public final class FlatCombiner<T, R> {

    private final int maxBatch;
    private final Function<List<T>, List<R>> send;
    private final ReentrantLock combining = new ReentrantLock();
    private final ConcurrentLinkedQueue<Request<T, R>> queued = new ConcurrentLinkedQueue<>();
    private final AtomicLong batches = new AtomicLong();

    /**
     * @param maxBatch most requests sent in one batch, at least 1
     * @param send     sends a batch; returns one result per request, in the requests' order
     */
    public FlatCombiner(int maxBatch, Function<List<T>, List<R>> send) {
        this.maxBatch = Math.max(1, maxBatch);
        this.send = send;
    }

    /** One thread's request; the combiner writes the outcome, then {@code done} (which publishes it). */
    private static final class Request<T, R> {
        final T item;
        final Thread thread = Thread.currentThread();
        R result;
        Throwable error;
        volatile boolean done;

        Request(T item) {
            this.item = item;
        }
    }

    /**
     * Sends {@code item}, possibly in one batch with other threads' requests, and waits for its result.
     *
     * @return the batch function's result for {@code item}
     * @throws RuntimeException what the batch function threw for the batch {@code item} was in (an
     *                          {@link Error} likewise)
     */
    public R submit(T item) {
        Request<T, R> mine = new Request<>(item);
        queued.add(mine);
        while (!mine.done) {
            if (combining.tryLock()) {
                try {
                    // Only the combiner takes from the queue, so until one has sent it, mine is still queued.
                    if (!mine.done) {
                        sendQueued();
                    }
                } finally {
                    combining.unlock();
                }
                handOver();
            } else {
                LockSupport.park(this); // woken by the combiner that sent mine, or to combine the next batch
            }
        }
        if (mine.error instanceof RuntimeException e) {
            throw e;
        }
        if (mine.error instanceof Error e) {
            throw e;
        }
        return mine.result;
    }

    /**
     * Wakes the first queued thread, to combine the next batch. Called by each combiner after it released
     * the lock: a thread that queued while the lock was held found it taken and parked, and this wakes it
     * (or the thread ahead of it, which then sends both).
     */
    public void handOver() {
        Request<T, R> head = queued.peek();
        if (head != null) {
            LockSupport.unpark(head.thread);
        }
    }

    /**
     * @return the lock a combiner holds while it sends a batch; a test may hold it to make a batch form
     *         (and then call {@link #handOver()}, as a combiner does after releasing it)
     */
    public ReentrantLock combiningLock() {
        return combining;
    }

    /** @return requests waiting for a combiner to send them */
    public int queued() {
        return queued.size();
    }

    /** @return batches sent so far */
    public long batches() {
        return batches.get();
    }

    private void sendQueued() {
        List<Request<T, R>> batch = new ArrayList<>();
        Request<T, R> r;
        while (batch.size() < maxBatch && (r = queued.poll()) != null) {
            batch.add(r);
        }
        List<T> items = new ArrayList<>(batch.size());
        batch.forEach(b -> items.add(b.item));
        try {
            batches.incrementAndGet();
            List<R> results = send.apply(items);
            if (results.size() != batch.size()) {
                throw new IllegalStateException(results.size() + " results for a batch of " + batch.size());
            }
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).result = results.get(i);
            }
        } catch (RuntimeException | Error e) {
            for (Request<T, R> b : batch) {
                b.error = e;
            }
        } finally {
            Thread me = Thread.currentThread();
            for (Request<T, R> b : batch) {
                b.done = true;
                if (b.thread != me) {
                    LockSupport.unpark(b.thread);
                }
            }
        }
    }
}
