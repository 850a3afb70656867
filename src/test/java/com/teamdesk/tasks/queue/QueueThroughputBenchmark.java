package com.teamdesk.tasks.queue;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Manual benchmark (not run by surefire): no-op jobs per second through one worker.
 * Usage: {@code java -cp target/test-classes:target/classes:<deps> com.teamdesk.tasks.queue.QueueThroughputBenchmark [jobs] [concurrency...]}
 */
public final class QueueThroughputBenchmark {

    private QueueThroughputBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        List<Integer> concurrencies = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            concurrencies.add(Integer.parseInt(args[i]));
        }
        if (concurrencies.isEmpty()) {
            concurrencies = List.of(1, 16);
        }
        URI uri = URI.create(System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6379"));
        for (int concurrency : concurrencies) {
            WorkerOptions options = WorkerOptions.defaults().withConcurrency(concurrency);
            ConnectionPoolConfig pool = new ConnectionPoolConfig();
            pool.setMaxTotal(options.requiredConnections() + 2);
            pool.setMaxIdle(options.requiredConnections() + 2);
            try (RedisClient redis = RedisClient.builder().hostAndPort(JedisURIHelper.getHostAndPort(uri))
                    .clientConfig(DefaultJedisClientConfig.builder(uri).build()).poolConfig(pool).build()) {
                String prefix = "bench-" + UUID.randomUUID();
                Queue queue = new Queue(redis, prefix, "bench");
                List<NewJob> batch = new ArrayList<>();
                for (int i = 0; i < jobs; i++) {
                    batch.add(new NewJob("job-" + i, "{}", JobOptions.defaults()));
                    if (batch.size() == 1000) {
                        queue.addBulk(batch);
                        batch.clear();
                    }
                }
                queue.addBulk(batch);
                CountDownLatch done = new CountDownLatch(jobs);
                ExecutorService executor = Executors.newFixedThreadPool(options.requiredThreads());
                Worker worker = new Worker(redis, prefix, "bench", options, job -> { }, executor);
                worker.addListener(new WorkerListener() {
                    @Override
                    public void completed(String jobId, int attemptsMade) {
                        done.countDown();
                    }
                });
                long start = System.nanoTime();
                worker.start();
                if (!done.await(10, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("benchmark did not finish");
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf("concurrency %d: %d jobs in %.2f s = %.0f jobs/s%n", concurrency, jobs, seconds,
                        jobs / seconds);
                worker.close(Duration.ofSeconds(10));
                executor.shutdownNow();
                queue.obliterate();
            }
        }
    }
}
