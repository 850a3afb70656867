package com.teamdesk.tasks.queue;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
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
 * Manual tool (not run by surefire, not a timing): Redis commands per job on the add, fetch and complete
 * path, from {@code INFO commandstats} deltas of the server. Point it at a Redis of its own (the counts are
 * server-wide): {@code TEAMDESK_REDIS_URL=redis://127.0.0.1:6391 java -cp ... QueueCommandCount [jobs]}.
 * A warm-up of 1000 jobs first fills the completed set to its retention (1000), so the measured jobs pay
 * the retention-by-count trim as in steady state. Prints a Markdown table: commands per job for
 * "add" (one at a time), "process c=1" and "process c=16", and the rows "~µs <command>": the server's
 * own time per job in that command ({@code usec} of INFO commandstats, wall time; a script's row includes
 * the commands it ran), and "~µs server CPU (user+sys)": the server process's CPU per job (INFO cpu), the
 * figure bench.P1Queue reports as "Redis CPU per processed job" (includes reading requests and writing
 * replies; less moved by other processes than the wall-time rows, but still indicative).
 */
public final class QueueCommandCount {

    /** Prefix of the rows that hold server time (INFO commandstats usec) rather than calls. */
    private static final String USEC = "~µs ";
    /** Row of the server's CPU time (INFO cpu used_cpu_user + used_cpu_sys), as bench.P1Queue reports it. */
    private static final String CPU = USEC + "server CPU (user+sys)";

    private QueueCommandCount() {
    }

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        URI uri = URI.create(System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6391"));
        WorkerOptions options = WorkerOptions.defaults().withConcurrency(16);
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(options.requiredConnections() + 2);
        pool.setMaxIdle(options.requiredConnections() + 2);
        Map<String, Map<String, Double>> columns = new java.util.LinkedHashMap<>();
        try (RedisClient redis = RedisClient.builder().hostAndPort(JedisURIHelper.getHostAndPort(uri))
                .clientConfig(DefaultJedisClientConfig.builder(uri).build()).poolConfig(pool).build()) {
            String prefix = "count-" + UUID.randomUUID();
            Queue queue = new Queue(redis, prefix, "count");
            ExecutorService executor = Executors.newCachedThreadPool();
            try {
                addOneByOne(queue, "warm-", 1_000);
                process(redis, prefix, options.withConcurrency(1), executor, 1_000);
                Map<String, Long> before = commandStats(redis);
                addOneByOne(queue, "a-", jobs);
                Map<String, Long> afterAdd = commandStats(redis);
                process(redis, prefix, options.withConcurrency(1), executor, jobs);
                Map<String, Long> afterC1 = commandStats(redis);
                addOneByOne(queue, "b-", jobs);
                Map<String, Long> beforeC16 = commandStats(redis);
                process(redis, prefix, options, executor, jobs);
                Map<String, Long> afterC16 = commandStats(redis);
                columns.put("add", perJob(before, afterAdd, jobs));
                columns.put("process c=1", perJob(afterAdd, afterC1, jobs));
                columns.put("process c=16", perJob(beforeC16, afterC16, jobs));
            } finally {
                executor.shutdownNow();
                queue.obliterate();
            }
        }
        print(columns);
    }

    private static void addOneByOne(Queue queue, String idPrefix, int jobs) {
        for (int i = 0; i < jobs; i++) {
            queue.add(idPrefix + i, "{\"taskId\":\"" + UUID.randomUUID() + "\",\"run\":0}", JobOptions.defaults());
        }
    }

    private static void process(RedisClient redis, String prefix, WorkerOptions options, ExecutorService executor,
                                int jobs) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(jobs);
        Worker worker = new Worker(redis, prefix, "count", options, job -> { }, executor);
        worker.addListener(new WorkerListener() {
            @Override
            public void completed(String jobId, int attemptsMade) {
                done.countDown();
            }
        });
        worker.start();
        if (!done.await(5, TimeUnit.MINUTES)) {
            throw new IllegalStateException("jobs were not processed");
        }
        worker.close(Duration.ofSeconds(10));
    }

    /** @return calls per command name ({@code cmdstat_evalsha:calls=...}) */
    private static Map<String, Long> commandStats(RedisClient redis) {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String name = line.substring("cmdstat_".length(), line.indexOf(':'));
            String stats = line.substring(line.indexOf(':') + 1);
            for (String kv : stats.split(",")) {
                if (kv.startsWith("calls=")) {
                    calls.put(name, Long.parseLong(kv.substring("calls=".length())));
                } else if (kv.startsWith("usec=")) {
                    calls.put(USEC + name, Long.parseLong(kv.substring("usec=".length())));
                }
            }
        }
        double cpuSeconds = 0;
        for (String line : redis.info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                cpuSeconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        calls.put(CPU, Math.round(cpuSeconds * 1e6));
        return calls;
    }

    private static Map<String, Double> perJob(Map<String, Long> before, Map<String, Long> after, int jobs) {
        Map<String, Double> out = new TreeMap<>();
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long delta = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (e.getKey().equals("info")) {
                delta -= 2; // our own two INFOs between the two readings
            }
            if (delta > 0) {
                out.put(e.getKey(), (double) delta / jobs);
            }
        }
        return out;
    }

    private static void print(Map<String, Map<String, Double>> columns) {
        TreeSet<String> names = new TreeSet<>();
        columns.values().forEach(c -> names.addAll(c.keySet()));
        List<String> header = new ArrayList<>(columns.keySet());
        System.out.println("| per job | " + String.join(" | ", header) + " |");
        System.out.println("|---" + "|---".repeat(header.size()) + "|");
        for (String name : names) {
            StringBuilder row = new StringBuilder("| " + name);
            for (String h : header) {
                Double v = columns.get(h).get(name);
                row.append(" | ").append(v == null ? "" : String.format("%.2f", v));
            }
            System.out.println(row + " |");
        }
        StringBuilder total = new StringBuilder("| **commands run (script calls not counted)**");
        for (String h : header) {
            Map<String, Double> c = columns.get(h);
            double sum = c.entrySet().stream().filter(e -> !e.getKey().startsWith(USEC))
                    .mapToDouble(Map.Entry::getValue).sum();
            total.append(" | ").append(String.format("%.2f", sum - c.getOrDefault("evalsha", 0.0)
                    - c.getOrDefault("fcall", 0.0)));
        }
        System.out.println(total + " |");
    }
}
