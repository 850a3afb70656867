package com.teamdesk.tasks.it.export;

import com.teamdesk.tasks.queue.AddResult;
import com.teamdesk.tasks.queue.Backoff;
import com.teamdesk.tasks.queue.JobOptions;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.queue.RedisClients;
import com.teamdesk.tasks.queue.Retention;
import com.teamdesk.tasks.task.spi.TaskJobId;
import java.util.UUID;
import redis.clients.jedis.UnifiedJedis;

/**
 * The task queue of a server under test, seen from the test JVM: the production {@link Queue}
 * over its own Redis client ({@code TEAMDESK_REDIS_URL}, as {@code ./teamdesk test} exports it) and
 * the server's Redis prefix. Used to read job records and, where a test must hand a job to the
 * worker itself, to add it exactly as the dispatcher does (R1 job id, the default retry policy).
 */
public final class ClientQueue implements AutoCloseable {
    /** Queue name ({@code teamdesk.queue.name} default). */
    public static final String QUEUE_NAME = "tasks";

    private final UnifiedJedis client;
    private final Queue queue;

    /** @param prefix the server's {@code teamdesk.redis.prefix} */
    public ClientQueue(String prefix) {
        this(System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6379"), prefix);
    }

    /**
     * @param url    the server's {@code teamdesk.redis.url} ({@code redis://} or {@code redis-cluster://})
     * @param prefix the server's {@code teamdesk.redis.prefix} as the server uses it (hash-tagged on a cluster)
     */
    public ClientQueue(String url, String prefix) {
        client = RedisClients.open(url, 8);
        queue = new Queue(client, prefix, QUEUE_NAME);
    }

    /** @return the production queue handle */
    public Queue queue() {
        return queue;
    }

    /** @return the raw Redis client */
    public UnifiedJedis redis() {
        return client;
    }

    /**
     * Adds job {@code T-run} with the payload and options the dispatcher uses (RetryPolicy defaults:
     * 3 attempts, exponential backoff from 2000 ms, retention 86400 s/1000 and 604800 s/1000).
     */
    public AddResult addTaskJob(UUID taskId, int run) {
        String payload = "{\"taskId\":\"" + taskId + "\",\"run\":" + run + "}";
        return queue.add(TaskJobId.of(taskId, run).toString(), payload, JobOptions.defaults().withAttempts(3)
                .withBackoff(Backoff.exponential(2000))
                .withRemoveOnComplete(new Retention(86_400, 1000))
                .withRemoveOnFail(new Retention(604_800, 1000)));
    }

    @Override
    public void close() {
        client.close();
    }
}
