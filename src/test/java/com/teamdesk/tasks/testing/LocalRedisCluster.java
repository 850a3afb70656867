package com.teamdesk.tasks.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real local Redis Cluster for tests: three masters and three replicas on six consecutive ports
 * ({@code scripts/redis-cluster.sh}, which {@code redis-server} and {@code redis-cli} run), nothing
 * persisted. Starting fails loudly when Redis is not installed or the cluster does not form; the suite
 * never skips for it.
 */
public final class LocalRedisCluster implements AutoCloseable {

    private static final Duration SCRIPT_LIMIT = Duration.ofSeconds(90);

    private final int basePort;
    private final String url;

    private LocalRedisCluster(int basePort, String url) {
        this.basePort = basePort;
        this.url = url;
    }

    /**
     * Starts a fresh cluster on {@code basePort … basePort + 5} (any cluster left there is shut down first).
     *
     * @return the running cluster
     * @throws IllegalStateException when the script fails or does not end within 90 s
     */
    public static LocalRedisCluster start(int basePort) {
        List<String> out = run("start", basePort);
        String url = out.isEmpty() ? "" : out.get(out.size() - 1).strip();
        if (!url.startsWith("redis-cluster://")) {
            throw new IllegalStateException("scripts/redis-cluster.sh start printed no URL: " + out);
        }
        return new LocalRedisCluster(basePort, url);
    }

    /** @return the {@code redis-cluster://} URL of three seed nodes */
    public String url() {
        return url;
    }

    /** @return the ports of the six nodes */
    public List<Integer> ports() {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ports.add(basePort + i);
        }
        return ports;
    }

    /** @return the master that owns {@code key}'s slot now, as the cluster's nodes tell */
    public HostAndPort masterOf(String key) {
        int slot = JedisClusterCRC16.getSlot(key);
        for (int port : ports()) {
            try (Jedis j = node(port)) {
                for (String line : j.clusterNodes().split("\n")) {
                    String[] f = line.split(" ");
                    if (f.length < 9 || !f[2].contains("master") || f[2].contains("fail")) {
                        continue;
                    }
                    for (int i = 8; i < f.length; i++) {
                        String[] range = f[i].split("-");
                        if (range[0].startsWith("[")) {
                            continue;
                        }
                        int from = Integer.parseInt(range[0]);
                        int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
                        if (slot >= from && slot <= to) {
                            return HostAndPort.from(f[1].substring(0, f[1].indexOf('@')));
                        }
                    }
                }
                return null;
            } catch (RuntimeException e) {
                // this node is down: ask the next one
            }
        }
        throw new IllegalStateException("no node of the cluster answers");
    }

    /** @return the port of a replica of the master at {@code masterPort} */
    public int replicaOf(int masterPort) {
        for (int port : ports()) {
            if (port == masterPort) {
                continue;
            }
            try (Jedis j = node(port)) {
                String info = j.info("replication");
                if (info.contains("role:slave") && info.contains("master_port:" + masterPort + "\r")) {
                    return port;
                }
            } catch (RuntimeException e) {
                // down: next
            }
        }
        throw new IllegalStateException("no replica of 127.0.0.1:" + masterPort);
    }

    /**
     * @return a plain connection to one node (the caller closes it), for cluster commands such as
     *         {@code CLUSTER FAILOVER}
     */
    public static Jedis node(int port) {
        return new Jedis(new HostAndPort("127.0.0.1", port),
                DefaultJedisClientConfig.builder().timeoutMillis(5000).autoNegotiateProtocol(false).build());
    }

    /** Stops every node and removes the cluster's directory. */
    @Override
    public void close() {
        run("stop", basePort);
    }

    private static List<String> run(String command, int basePort) {
        Path script = Path.of("scripts", "redis-cluster.sh").toAbsolutePath();
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("missing " + script + " (run the tests from the project directory)");
        }
        try {
            Path out = Files.createTempFile("redis-cluster-", ".out");
            try {
                Process p = new ProcessBuilder("bash", script.toString(), command, Integer.toString(basePort))
                        .redirectErrorStream(true).redirectOutput(out.toFile()).start();
                if (!p.waitFor(SCRIPT_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("scripts/redis-cluster.sh " + command + " did not end in " + SCRIPT_LIMIT);
                }
                List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
                if (p.exitValue() != 0) {
                    throw new IllegalStateException("scripts/redis-cluster.sh " + command + " failed: " + lines);
                }
                return lines;
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + script + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + script, e);
        }
    }

    /** Redis's manual failover timeout (CLUSTER_MF_TIMEOUT): a manual failover not done by then is aborted. */
    private static final Duration MANUAL_FAILOVER_TIMEOUT = Duration.ofSeconds(5);

    /**
     * A planned failover: {@code CLUSTER FAILOVER} on the replica, sent again whenever Redis aborted the
     * previous one (a manual failover that does not finish within Redis's 5 s is dropped, not retried:
     * e.g. when a master refused its vote because it voted for that shard moments before), until the
     * replica reports itself a master, bounded by {@code max}.
     *
     * @throws IllegalStateException when it does not become a master within {@code max}
     */
    public static void failover(int replicaPort, Duration max) throws InterruptedException {
        Instant deadline = Instant.now().plus(max);
        while (Instant.now().isBefore(deadline)) {
            try (Jedis j = node(replicaPort)) {
                if (j.info("replication").contains("role:master")) {
                    return;
                }
                j.clusterFailover();
            }
            Instant retry = Instant.now().plus(MANUAL_FAILOVER_TIMEOUT).plusSeconds(1);
            try {
                awaitMaster(replicaPort, Duration.between(Instant.now(),
                        retry.isBefore(deadline) ? retry : deadline));
                return;
            } catch (IllegalStateException notYet) {
                // aborted by Redis: ask again
            }
        }
        throw new IllegalStateException("127.0.0.1:" + replicaPort + " did not become a master within " + max);
    }

    /**
     * Waits until {@code port} reports itself a master (after a failover), bounded.
     *
     * @throws IllegalStateException when it does not within {@code max}
     */
    public static void awaitMaster(int port, Duration max) throws InterruptedException {
        Instant deadline = Instant.now().plus(max);
        while (Instant.now().isBefore(deadline)) {
            try (Jedis j = node(port)) {
                if (j.info("replication").contains("role:master")) {
                    return;
                }
            } catch (RuntimeException e) {
                // not answering yet
            }
            Thread.sleep(50); // bounded poll of a state change, orders nothing
        }
        throw new IllegalStateException("127.0.0.1:" + port + " did not become a master within " + max);
    }
}
