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
 * Manual tool (not run by surefire, not a timing): the rounds of bench.P1Queue's c=16 phase (addBulk of N
 * jobs with the bench's options, then a worker with concurrency 16 and a no-op processor until N completed
 * events), with a shell hook run before and after each add and each processing phase, so that a Redis of its
 * own run under {@code valgrind --tool=callgrind} can count the server's instructions per job, a figure that
 * the machine's load does not move (issue 16):
 * <pre>
 * valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p.out redis-server --port 6392 --save '' &amp;
 * # hook: "callgrind_control -z PID" on "before", "callgrind_control -d PID" on "after"
 * TEAMDESK_REDIS_URL=redis://127.0.0.1:6392 java -Dhook=/path/hook.sh -cp ... QueueInstructionCount 4000 2
 * # Ir per job = the "summary:" line of each dump / N (dumps alternate: add, process)
 * </pre>
 * Prints per round the processing rate (meaningless under valgrind), the server's CPU per job (INFO cpu)
 * and the script calls per job (the batch size of the combined completions decides the per-call share).
 */
public final class QueueInstructionCount {

    private QueueInstructionCount() {
    }

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 4_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        URI uri = URI.create(System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6392"));
        WorkerOptions options = WorkerOptions.defaults().withConcurrency(16);
        JobOptions jobOptions = new JobOptions(3, Backoff.exponential(2000), 0, new Retention(86_400, 1000),
                new Retention(604_800, 1000));
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(options.requiredConnections() + 4);
        pool.setMaxIdle(options.requiredConnections() + 4);
        ExecutorService executor = Executors.newFixedThreadPool(options.requiredThreads());
        try (RedisClient redis = RedisClient.builder().hostAndPort(JedisURIHelper.getHostAndPort(uri))
                .clientConfig(DefaultJedisClientConfig.builder(uri).build()).poolConfig(pool).build()) {
            String prefix = "icount-" + UUID.randomUUID();
            Queue queue = new Queue(redis, prefix, "q");
            try {
                for (int round = 0; round < rounds; round++) {
                    hook("before");
                    List<NewJob> batch = new ArrayList<>();
                    for (int i = 0; i < jobs; i++) {
                        batch.add(new NewJob("r" + round + "-" + i,
                                "{\"taskId\":\"" + UUID.randomUUID() + "\",\"run\":0}", jobOptions));
                        if (batch.size() == 1000 || i == jobs - 1) {
                            queue.addBulk(batch);
                            batch.clear();
                        }
                    }
                    hook("after");
                    long calls0 = evalshaCalls(redis);
                    hook("before");
                    double cpu0 = cpuSeconds(redis);
                    CountDownLatch done = new CountDownLatch(jobs);
                    Worker worker = new Worker(redis, prefix, "q", options, job -> { }, executor);
                    worker.addListener(new WorkerListener() {
                        @Override
                        public void completed(String jobId, int attemptsMade) {
                            done.countDown();
                        }
                    });
                    long t0 = System.nanoTime();
                    worker.start();
                    if (!done.await(10, TimeUnit.MINUTES)) {
                        throw new IllegalStateException("jobs were not processed");
                    }
                    double seconds = (System.nanoTime() - t0) / 1e9;
                    double cpu1 = cpuSeconds(redis);
                    hook("after");
                    long calls1 = evalshaCalls(redis);
                    worker.close(Duration.ofSeconds(10));
                    System.out.printf("round %d: %.0f jobs/s, Redis CPU %.1f µs/job, script calls %.3f/job%n", round,
                            jobs / seconds, (cpu1 - cpu0) * 1e6 / jobs, (calls1 - calls0) / (double) jobs);
                }
            } finally {
                queue.obliterate();
            }
        } finally {
            executor.shutdownNow();
        }
    }

    private static void hook(String phase) throws Exception {
        String hook = System.getProperty("hook");
        if (hook != null) {
            new ProcessBuilder("sh", "-c", hook + " " + phase).inheritIO().start().waitFor();
        }
    }

    private static long evalshaCalls(RedisClient redis) {
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:calls=")) {
                return Long.parseLong(line.substring("cmdstat_evalsha:calls=".length(), line.indexOf(',')));
            }
        }
        return 0;
    }

    private static double cpuSeconds(RedisClient redis) {
        double cpu = 0;
        for (String line : redis.info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return cpu;
    }
}
