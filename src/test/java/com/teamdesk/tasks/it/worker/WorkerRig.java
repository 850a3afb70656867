package com.teamdesk.tasks.it.worker;

import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.queue.WorkerOptions;
import com.teamdesk.tasks.task.engine.TaskProcessor;
import com.teamdesk.tasks.task.engine.TaskWorker;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.spi.TaskJobId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Makes {@link TestWorkers} from the production beans: the {@link TaskProcessor}, the application's
 * {@link RedisResources} (client, prefix, queue name) and the deployed {@link TaskWorker}'s own
 * executor, so every execution runs on a production worker thread (made by the worker bean's
 * {@code ManagedThreadFactory}, with the context and transaction boundaries production executions
 * have — issue 10: a thread made another way proves nothing about production).
 */
@ApplicationScoped
public class WorkerRig {

    /**
     * The only settings T3 shortens on the worker: lock 1000 ms renewed every 500 ms, stalled check every
     * 100 ms. Everything else is {@link WorkerOptions#defaults()} (concurrency 1, maxStalledCount 1).
     */
    public static final WorkerOptions FAST = WorkerOptions.defaults()
            .withLockDurationMs(1000).withLockRenewMs(500).withStalledIntervalMs(100);

    @Inject
    TaskWorker taskWorker;

    @Inject
    RedisResources redis;

    @Inject
    TaskProcessor processor;

    @Inject
    JdbcTaskLedger ledger;

    /** @return no workers yet; start them with {@link TestWorkers#start} and close it in finally */
    public TestWorkers open(WorkerEvents events) {
        return new TestWorkers(redis, processor, events, jobId -> {
            try {
                return ledger.find(TaskJobId.parse(jobId).taskId()).orElse(null);
            } catch (IllegalArgumentException notATaskJob) {
                return null;
            }
        }, taskWorker.executorForWorkers());
    }
}
