package com.teamdesk.tasks.it.worker;

import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.queue.JobProcessor;
import com.teamdesk.tasks.queue.Worker;
import com.teamdesk.tasks.queue.WorkerListener;
import com.teamdesk.tasks.queue.WorkerOptions;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;

/**
 * The real workers of one test, on the deployed {@code TaskWorker}'s own executor (the production
 * worker threads). {@link #close()} closes every worker (the executor belongs to the worker bean and
 * stays): call it in a finally block.
 */
public final class TestWorkers implements AutoCloseable {

    private final RedisResources redis;
    private final JobProcessor production;
    private final WorkerEvents events;
    private final Function<String, BackgroundTask> rowOf;
    private final ExecutorService executor;
    private final List<Worker> workers = new ArrayList<>();

    TestWorkers(RedisResources redis, JobProcessor production, WorkerEvents events,
            Function<String, BackgroundTask> rowOf, ExecutorService executor) {
        this.redis = redis;
        this.production = production;
        this.events = events;
        this.rowOf = rowOf;
        this.executor = executor;
    }

    /**
     * Starts a real worker on the production queue (same Redis client, prefix and queue name as the
     * production dispatcher) that runs the production processor, observed by {@link WorkerEvents}.
     *
     * @param name       "A", "B": how events name it
     * @param options    worker settings (shortened timing)
     * @param renewLocks false switches lock renewal off, so its job's lock expires while the job runs (R6)
     * @param listeners  its listeners, called in this order
     */
    public Worker start(String name, WorkerOptions options, boolean renewLocks, WorkerListener... listeners) {
        Worker w = new Worker(redis.redis(), redis.prefix(), redis.queueName(), options.withLockRenewal(renewLocks),
                events.observe(name, production, rowOf), executor);
        for (WorkerListener l : listeners) {
            w.addListener(l);
        }
        synchronized (workers) {
            workers.add(w);
        }
        w.start();
        return w;
    }

    /**
     * Joins a worker: it stops fetching at once and waits (bounded) until its in-flight execution has ended
     * and the worker has recorded (or dropped) its outcome in Redis and told its listeners.
     *
     * @return true when nothing was in flight any more
     */
    public boolean join(Worker w) {
        return w.close(Duration.ofMillis(WorkerEvents.MAX_WAIT_MS));
    }

    /** Closes every worker (newest first). */
    @Override
    public void close() {
        List<Worker> all;
        synchronized (workers) {
            all = new ArrayList<>(workers);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            all.get(i).close(Duration.ofMillis(WorkerEvents.MAX_WAIT_MS));
        }
    }
}
