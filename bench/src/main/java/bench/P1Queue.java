package bench;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.teamdesk.tasks.queue.AddResult;
import com.teamdesk.tasks.queue.Backoff;
import com.teamdesk.tasks.queue.JobOptions;
import com.teamdesk.tasks.queue.NewJob;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.queue.Retention;
import com.teamdesk.tasks.queue.Worker;
import com.teamdesk.tasks.queue.WorkerListener;
import com.teamdesk.tasks.queue.WorkerOptions;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.RedisClient;

/**
 * P1, our side: one round of no-op jobs through com.teamdesk.tasks.queue, the same steps as
 * bench/bullmq/p1.js does with BullMQ.
 *
 * <ol>
 * <li>add N jobs one at a time (one thread, one call after the other), then process them with concurrency 1;</li>
 * <li>in a fresh queue, add N jobs with addBulk in batches of 1000, then process them with concurrency 16.</li>
 * </ol>
 * Job options as the application's (R4/R5): attempts 3, exponential backoff 2000 ms, removeOnComplete
 * 86400 s / 1000, removeOnFail 604800 s / 1000. Job ids are caller-chosen ("job-i"), as the application's
 * "T-run" ids are. Processing time runs from Worker.start() to the N-th completed event.
 *
 * <p>Both steps first run uncounted with {@code warmup} jobs under {@code <key-prefix>-warmup} (when
 * {@code warmup} &gt; 0), so that the counted phases time a JVM whose queue code is compiled, not its JIT
 * compiler (bench/notes/P1.md; the peer's driver does the same).
 *
 * <p>Usage: {@code P1Queue <redis-url> <key-prefix> <jobs> [warmup]}. Prints one JSON line. Deletes its keys.
 */
public final class P1Queue {

    static final JobOptions OPTIONS = new JobOptions(3, Backoff.exponential(2000), 0,
            new Retention(86_400, 1000), new Retention(604_800, 1000));
    static final int BULK = 1000;
    static final long PHASE_TIMEOUT_S = 300;

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[0]);
        String prefix = args[1];
        int jobs = Integer.parseInt(args[2]);
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        int conns = WorkerOptions.defaults().withConcurrency(16).requiredConnections() + 4;
        pool.setMaxTotal(conns);
        pool.setMaxIdle(conns);
        try (RedisClient redis = RedisClient.builder().fromURI(uri).poolConfig(pool).build()) {
            if (warmup > 0) {
                round(redis, prefix + "-warmup", warmup);
            }
            System.out.println("{\"side\":\"ours\",\"jobs\":" + jobs + ",\"warmupJobs\":" + warmup
                    + round(redis, prefix, jobs) + "}");
        }
    }

    /** Both steps with {@code jobs} jobs under {@code prefix}; @return their figures as JSON members, each after a comma. */
    static String round(RedisClient redis, String prefix, int jobs) throws InterruptedException {
        StringBuilder out = new StringBuilder();

        // 1. single adds, then concurrency 1
        Queue q1 = new Queue(redis, prefix, "single");
        try {
            long t0 = System.nanoTime();
            for (int i = 0; i < jobs; i++) {
                if (q1.add("job-" + i, payload(i), OPTIONS) != AddResult.ADDED) {
                    throw new IllegalStateException("duplicate job-" + i);
                }
            }
            double addS = seconds(t0);
            out.append(",\"add\":").append(rate(jobs, addS));
            measureProcessing(out, redis, prefix, "single", 1, jobs);
        } finally {
            q1.obliterate();
        }

        // 2. bulk adds, then concurrency 16
        Queue q16 = new Queue(redis, prefix, "bulk");
        try {
            long t0 = System.nanoTime();
            List<NewJob> batch = new ArrayList<>(BULK);
            for (int i = 0; i < jobs; i++) {
                batch.add(new NewJob("job-" + i, payload(i), OPTIONS));
                if (batch.size() == BULK || i == jobs - 1) {
                    for (AddResult r : q16.addBulk(batch)) {
                        if (r != AddResult.ADDED) {
                            throw new IllegalStateException("duplicate in bulk add");
                        }
                    }
                    batch.clear();
                }
            }
            double bulkS = seconds(t0);
            out.append(",\"bulkAdd\":").append(rate(jobs, bulkS));
            measureProcessing(out, redis, prefix, "bulk", 16, jobs);
        } finally {
            q16.obliterate();
        }
        return out.toString();
    }

    /**
     * Processes the queue's {@code jobs} with {@code concurrency} slots and appends the rate and the Redis
     * profile per job as {@code "process<concurrency>"} and {@code "profile<concurrency>"}.
     */
    static void measureProcessing(StringBuilder out, RedisClient redis, String prefix, String queue, int concurrency,
            int jobs) throws InterruptedException {
        RedisStats before = RedisStats.take(redis);
        double procS = process(redis, prefix, queue, concurrency, jobs);
        RedisStats after = RedisStats.take(redis);
        out.append(",\"process").append(concurrency).append("\":").append(rate(jobs, procS))
                .append(",\"profile").append(concurrency).append("\":").append(RedisStats.perJob(before, after, jobs));
    }

    /** Runs a worker with a plain executor until {@code jobs} completed events; @return seconds. */
    static double process(RedisClient redis, String prefix, String queue, int concurrency, int jobs)
            throws InterruptedException {
        WorkerOptions options = WorkerOptions.defaults().withConcurrency(concurrency);
        ExecutorService executor = Executors.newFixedThreadPool(options.requiredThreads());
        CountDownLatch done = new CountDownLatch(jobs);
        Worker worker = new Worker(redis, prefix, queue, options, job -> { }, executor);
        worker.addListener(new WorkerListener() {
            @Override
            public void completed(String jobId, int attemptsMade) {
                done.countDown();
            }

            @Override
            public void failed(String jobId, int attemptsMade, boolean exhausted, String reason) {
                System.err.println("P1 ours: job " + jobId + " failed: " + reason);
            }
        });
        try {
            long t0 = System.nanoTime();
            worker.start();
            if (!done.await(PHASE_TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException("processing did not finish in " + PHASE_TIMEOUT_S + " s: "
                        + done.getCount() + " left");
            }
            return seconds(t0);
        } finally {
            worker.close(Duration.ofSeconds(10));
            executor.shutdownNow();
        }
    }

    static String payload(int i) {
        return "{\"taskId\":\"" + new UUID(0x7ea4L, i) + "\",\"run\":0}";
    }

    static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    static String rate(int jobs, double s) {
        return String.format(Locale.ROOT, "%.1f", jobs / s);
    }
}
