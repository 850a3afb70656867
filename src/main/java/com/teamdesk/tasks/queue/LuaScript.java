package com.teamdesk.tasks.queue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One Lua script, run with EVALSHA. Its SHA-1 is computed locally; the script is sent with SCRIPT LOAD only
 * when the server answers NOSCRIPT (first use, server restart or SCRIPT FLUSH), then the call is retried.
 * A NOSCRIPT call ran nothing, so the retry is safe.
 */
final class LuaScript {

    private final String name;
    private final String source;
    private final String sha;

    LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
    }

    String name() {
        return name;
    }

    String source() {
        return source;
    }

    /** Runs the script in one round trip (two more on NOSCRIPT). */
    Object eval(UnifiedJedis redis, List<String> keys, List<String> args) {
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisDataException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            load(redis);
            return redis.evalsha(sha, keys, args);
        }
    }

    /** Queues the script on a pipeline; the caller must {@link #load} it first and may get NOSCRIPT back. */
    Response<Object> eval(AbstractPipeline pipeline, List<String> keys, List<String> args) {
        return pipeline.evalsha(sha, keys, args);
    }

    void load(UnifiedJedis redis) {
        String loaded = redis.scriptLoad(source);
        if (!sha.equals(loaded)) {
            throw new IllegalStateException("Redis returned SHA " + loaded + " for script " + name + ", expected " + sha);
        }
    }

    static boolean isNoScript(JedisDataException e) {
        return e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT");
    }

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by every Java platform", e);
        }
    }
}
