package com.teamdesk.tasks.queue;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Opens the pooled Redis client a queue runs on, chosen by the URL (issue 17):
 * <ul>
 * <li>{@code redis://[user:password@]host:port[/db]} or {@code rediss://…}: one Redis server;</li>
 * <li>{@code redis-cluster://[user:password@]host:port[,host:port…]}: a Redis Cluster, reached through
 * any of the listed seed nodes. Jedis's cluster client routes every command by its key's slot and
 * follows {@code MOVED}/{@code ASK} replies; a queue's keys share one hash tag
 * ({@link QueueKeys#hashTagged(String)}), so each script runs on the one node that owns the queue.</li>
 * </ul>
 */
public final class RedisClients {

    /** Scheme of a Redis Cluster URL. */
    public static final String CLUSTER_SCHEME = "redis-cluster";

    private RedisClients() {
    }

    /** @return true when {@code url} names a Redis Cluster ({@code redis-cluster://…}) */
    public static boolean isCluster(String url) {
        return url != null && url.regionMatches(true, 0, CLUSTER_SCHEME + "://", 0, CLUSTER_SCHEME.length() + 3);
    }

    /** @return true when {@code redis} talks to a Redis Cluster */
    public static boolean isCluster(UnifiedJedis redis) {
        return redis instanceof RedisClusterClient; // what open() builds for redis-cluster:// (Jedis 7+)
    }

    /**
     * Opens a pooled, thread-safe client.
     *
     * @param url            a {@code redis://}, {@code rediss://} or {@code redis-cluster://} URL
     * @param maxConnections most pooled connections (per node on a cluster), at least 1
     * @return the client; the caller closes it
     * @throws IllegalArgumentException when the URL is malformed or names no host and port
     */
    public static UnifiedJedis open(String url, int maxConnections) {
        Objects.requireNonNull(url, "url");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1: " + maxConnections);
        }
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(maxConnections);
        pool.setMaxIdle(maxConnections);
        pool.setMinIdle(Math.min(2, maxConnections));
        if (isCluster(url)) {
            return openCluster(url, pool);
        }
        URI uri = uri(url);
        if (!JedisURIHelper.isValid(uri)) {
            throw new IllegalArgumentException("not a Redis URL (redis://host:port): " + redact(url));
        }
        return RedisClient.builder()
                .hostAndPort(JedisURIHelper.getHostAndPort(uri))
                .clientConfig(DefaultJedisClientConfig.builder(uri).build())
                .poolConfig(pool)
                .build();
    }

    /**
     * Deletes every key that starts with {@code keyPrefix}: {@code SCAN MATCH <keyPrefix>*} (glob characters
     * in the prefix escaped) and {@code UNLINK} of each page (at most about 1 000 keys a command). Keys
     * written while it runs may survive it. On a Redis Cluster the prefix must carry a hash tag
     * ({@link QueueKeys#hashTagged(String)}): the scan then runs on the one node that owns the tag's slot.
     *
     * @param redis     the client
     * @param keyPrefix the start of the keys to delete, non-empty
     * @return how many keys the scan found (and unlinked)
     * @throws IllegalArgumentException if the prefix is empty
     */
    public static long unlinkByPrefix(UnifiedJedis redis, String keyPrefix) {
        Objects.requireNonNull(redis, "redis");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        if (keyPrefix.isEmpty()) {
            throw new IllegalArgumentException("keyPrefix must not be empty: that would be every key");
        }
        ScanParams params = new ScanParams().match(escapeGlob(keyPrefix) + "*").count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        long found = 0;
        do {
            ScanResult<String> page = redis.scan(cursor, params);
            if (!page.getResult().isEmpty()) {
                found += page.getResult().size();
                redis.unlink(page.getResult().toArray(String[]::new));
            }
            cursor = page.getCursor();
        } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
        return found;
    }

    /** @return {@code s} with Redis glob characters ({@code * ? [ ] \}) escaped, for {@code SCAN MATCH} */
    static String escapeGlob(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    private static UnifiedJedis openCluster(String url, ConnectionPoolConfig pool) {
        String rest = url.substring(CLUSTER_SCHEME.length() + 3);
        String userInfo = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
        }
        int end = rest.indexOf('/');
        if (end >= 0) {
            rest = rest.substring(0, end);
        }
        Set<HostAndPort> nodes = new LinkedHashSet<>();
        for (String node : rest.split(",")) {
            nodes.add(hostAndPort(node.strip(), url));
        }
        // RESP2 as with one server (the cluster client cannot negotiate RESP3 and says so per connection)
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP2);
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon >= 0) {
                if (colon > 0) {
                    config.user(userInfo.substring(0, colon));
                }
                config.password(userInfo.substring(colon + 1));
            } else {
                config.password(userInfo);
            }
        }
        return RedisClusterClient.builder().nodes(nodes).clientConfig(config.build()).poolConfig(pool).build();
    }

    private static HostAndPort hostAndPort(String node, String url) {
        int colon = node.lastIndexOf(':');
        if (node.isEmpty() || colon <= 0 || colon == node.length() - 1) {
            throw new IllegalArgumentException("a Redis Cluster URL lists host:port seed nodes separated by commas: " + redact(url));
        }
        try {
            int port = Integer.parseInt(node.substring(colon + 1));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range in " + redact(url));
            }
            return new HostAndPort(node.substring(0, colon), port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a port number in " + redact(url), e);
        }
    }

    /** @return the URL with any user and password replaced by {@code ***}, fit for a log line */
    public static String redact(String url) {
        if (url == null) {
            return null;
        }
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        return scheme >= 0 && at > scheme ? url.substring(0, scheme + 3) + "***" + url.substring(at) : url;
    }

    private static URI uri(String url) {
        try {
            return new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a Redis URL: " + redact(url), e);
        }
    }
}
