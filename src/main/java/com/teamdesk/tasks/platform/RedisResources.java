package com.teamdesk.tasks.platform;

import com.teamdesk.tasks.queue.Queue;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.net.URI;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Owns the application's pooled Redis client and the handle of the task queue. The pool is sized
 * to the worker's concurrency plus the worker's own loops and the producers (dispatch, API):
 * {@link ConnectionBudget#redisPool(int)}.
 * Closed when the application stops.
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

    private RedisClient client;
    private Queue queue;

    @PostConstruct
    void open() {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(ConnectionBudget.redisPool(concurrency));
        pool.setMaxIdle(ConnectionBudget.redisPool(concurrency));
        pool.setMinIdle(2);
        URI uri = URI.create(url);
        client = RedisClient.builder()
                .hostAndPort(JedisURIHelper.getHostAndPort(uri))
                .clientConfig(DefaultJedisClientConfig.builder(uri).build())
                .poolConfig(pool)
                .build();
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
}
