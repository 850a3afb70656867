package com.teamdesk.tasks.queue;

import java.util.concurrent.TimeUnit;

/**
 * The processing slots of one worker, counted once: the fetch loop takes a slot before it fetches a job, the
 * slot is given back when the job (and every job fetched after it in the same slot) has been recorded.
 * {@link #close()} stops handing out slots, so that {@link #awaitIdle(long)} can wait for the busy ones.
 */
final class SlotPool {

    private final int size;
    /** Guarded by {@code this}. */
    private int busy;
    /** Guarded by {@code this}. */
    private boolean closed;

    /** @param size number of slots ({@code concurrency}, or its general or its reserved part, R42), {@code >= 1} */
    SlotPool(int size) {
        this.size = size;
    }

    /**
     * Blocks until a slot is free and takes it.
     *
     * @return true with a slot taken; false (nothing taken) once the pool is closed or the thread is interrupted
     */
    synchronized boolean take() {
        try {
            while (busy == size && !closed) {
                wait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        if (closed) {
            return false;
        }
        busy++;
        return true;
    }

    /** Gives back a slot taken with {@link #take()}. */
    synchronized void giveBack() {
        busy--;
        notifyAll();
    }

    /** @return slots taken now */
    synchronized int busy() {
        return busy;
    }

    /** Hands out no more slots; a {@link #take()} waiting for one returns false. */
    synchronized void close() {
        closed = true;
        notifyAll();
    }

    /**
     * Waits until no slot is taken.
     *
     * @param deadlineNanos {@link System#nanoTime()} after which it gives up
     * @return true when every slot was free before the deadline
     */
    synchronized boolean awaitIdle(long deadlineNanos) {
        while (busy > 0) {
            long waitMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (waitMs <= 0) {
                return false;
            }
            try {
                wait(waitMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
