package com.teamdesk.tasks.platform;

import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.queue.QueueKeys;
import com.teamdesk.tasks.queue.RedisClients;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import redis.clients.jedis.UnifiedJedis;

/**
 * Owns the application's pooled Redis client and the handle of the task queue. The pool is sized
 * to the worker's concurrency plus the worker's own loops and the producers (dispatch, API):
 * {@link #redisPool(int)}.
 * Closed when the application stops.
 *
 * <p>{@code teamdesk.redis.url} chooses one Redis ({@code redis://host:port}) or a Redis Cluster
 * ({@code redis-cluster://host:port,host:port}, see {@link RedisClients}); on a cluster the key prefix
 * is hash-tagged ({@code teamdesk} becomes {@code {teamdesk}}) so that all keys of the queue share a slot.
 */
@ApplicationScoped
public class RedisResources {

    @Inject
    @ConfigProperty(name = "teamdesk.redis.url", defaultValue = "redis://127.0.0.1:6379")
    String url;

    @Inject
    @ConfigProperty(name = "teamdesk.redis.prefix", defaultValue = "teamdesk")
    String prefix;

    @Inject
    @ConfigProperty(name = "teamdesk.queue.name", defaultValue = "tasks")
    String queueName;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.concurrency", defaultValue = "4")
    int concurrency;

    private UnifiedJedis client;
    private Queue queue;

    /**
     * Created while the application starts, on the deploying thread: its settings are then the WAR's. A first use on
     * a thread of the server outside the application's requests (a readiness probe polling from the start) would
     * read the server's configuration, and the queue would run under the default prefix.
     */
    void openAtStartup(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        // the observer's delivery creates this bean; open() does the work
    }

    @PostConstruct
    void open() {
        client = RedisClients.open(url, redisPool(concurrency));
        if (RedisClients.isCluster(url)) {
            prefix = QueueKeys.hashTagged(prefix);
        }
        queue = new Queue(client, prefix, queueName);
    }

    @PreDestroy
    void close() {
        client.close();
    }

    /** @return the pooled Redis client (thread-safe) */
    public UnifiedJedis redis() {
        return client;
    }

    /** @return the task queue producer and look-ups (thread-safe) */
    @Produces
    public Queue taskQueue() {
        return queue;
    }

    /** @return the key prefix of this application's queue keys */
    public String prefix() {
        return prefix;
    }

    /** @return the task queue's name */
    public String queueName() {
        return queueName;
    }

    /** @return the Redis pool bound for a worker concurrency: {@code 2 × concurrency + 16} */
    public static int redisPool(int concurrency) {
        return 2 * concurrency + 16;
    }
}
