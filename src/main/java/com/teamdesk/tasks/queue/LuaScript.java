package com.teamdesk.tasks.queue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One Lua script, run with EVALSHA. Its SHA-1 is computed locally; the script is sent with SCRIPT LOAD only
 * when the server answers NOSCRIPT (first use, server restart or SCRIPT FLUSH), then the call is retried.
 * A NOSCRIPT call ran nothing, so the retry is safe.
 *
 * <p>The queue's scripts are files, {@code src/main/resources/queue/lua/<name>.lua}, read once by
 * {@link #fromClasspath}. A line {@code --!include <file>.lua} is replaced by that file's text (one level;
 * {@code scripts/lua-expand.sh} does the same for {@code redis-cli --eval}). The header declares every key
 * and argument as {@code -- KEYS[1] waitKey ...} / {@code -- ARGV[1] jobPrefix ...} ({@code KEYS[1..] name}
 * for a variable tail). The script must bind each one to a local of that name
 * ({@code local waitKey = KEYS[1]}) and use KEYS or ARGV by literal position nowhere else; a script that
 * breaks this is refused when it is read. Every call is checked against the header's counts.
 */
final class LuaScript {

    /** Classpath folder of the queue's scripts. */
    static final String DIRECTORY = "queue/lua/";

    private static final Pattern INCLUDE = Pattern.compile("--!include\\s+(\\S+)\\s*");
    private static final Pattern DECLARED = Pattern.compile("--\\s+(KEYS|ARGV)\\[(\\d+)(\\.\\.)?]\\s+(\\w+)\\b.*");
    private static final Pattern BOUND = Pattern.compile("local\\s+(\\w+)\\s*=\\s*(KEYS|ARGV)\\[(\\d+)]\\s*");
    private static final Pattern POSITIONAL = Pattern.compile("\\b(KEYS|ARGV)\\[\\d+]");

    /** What a header declares for KEYS or ARGV: the names of the fixed positions, and whether more may follow. */
    private record Layout(String kind, List<String> names, boolean variadic) {

        void check(String script, int given) {
            if (variadic ? given < names.size() : given != names.size()) {
                throw new IllegalArgumentException("script " + script + " takes " + (variadic ? "at least " : "")
                        + names.size() + " " + kind + " " + names + ", got " + given);
            }
        }
    }

    private final String name;
    private final String source;
    private final String sha;
    private final Layout keys;
    private final Layout args;

    /**
     * A script from its full (already expanded) text.
     *
     * @throws IllegalArgumentException when the header and the script's locals disagree (see the class comment)
     */
    LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
        List<String> lines = source.lines().toList();
        this.keys = layout(name, "KEYS", lines);
        this.args = layout(name, "ARGV", lines);
        checkBindings(name, lines, keys, args);
    }

    /**
     * Reads {@code queue/lua/<name>.lua} from the classpath and expands its includes.
     *
     * @throws IllegalStateException when a file is missing or unreadable
     * @throws IllegalArgumentException when the script breaks the header rules
     */
    static LuaScript fromClasspath(String name) {
        return new LuaScript(name, expand(name + ".lua"));
    }

    /** The text sent to Redis: the file with every {@code --!include} line replaced by the included file. */
    static String expand(String file) {
        StringBuilder out = new StringBuilder();
        for (String line : read(file)) {
            Matcher include = INCLUDE.matcher(line);
            if (!include.matches()) {
                out.append(line).append('\n');
                continue;
            }
            for (String included : read(include.group(1))) {
                if (INCLUDE.matcher(included).matches()) {
                    throw new IllegalArgumentException(include.group(1) + " includes another file: one level only");
                }
                out.append(included).append('\n');
            }
        }
        return out.toString();
    }

    String name() {
        return name;
    }

    String source() {
        return source;
    }

    /**
     * Runs the script in one round trip (two more on NOSCRIPT).
     *
     * @throws IllegalArgumentException when the number of keys or arguments differs from the header's
     */
    Object eval(UnifiedJedis redis, List<String> keys, List<String> args) {
        checkCall(keys, args);
        try {
            return redis.evalsha(sha, keys, args);
        } catch (JedisDataException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            load(redis, keys.isEmpty() ? null : keys.get(0));
            return redis.evalsha(sha, keys, args);
        }
    }

    /**
     * Queues the script on a pipeline; the caller must {@link #load} it first and may get NOSCRIPT back.
     *
     * @throws IllegalArgumentException when the number of keys or arguments differs from the header's
     */
    Response<Object> eval(AbstractPipeline pipeline, List<String> keys, List<String> args) {
        checkCall(keys, args);
        return pipeline.evalsha(sha, keys, args);
    }

    /**
     * Loads the script into the Redis that owns {@code sampleKey}'s slot (on a cluster; any key of the
     * queue will do, they share a hash tag), or into the one server.
     *
     * @param sampleKey a key the script will be called with, or null to load where the client chooses
     */
    void load(UnifiedJedis redis, String sampleKey) {
        String loaded = sampleKey == null ? redis.scriptLoad(source) : redis.scriptLoad(source, sampleKey);
        if (!sha.equals(loaded)) {
            throw new IllegalStateException("Redis returned SHA " + loaded + " for script " + name + ", expected " + sha);
        }
    }

    static boolean isNoScript(JedisDataException e) {
        return e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT");
    }

    private void checkCall(List<String> keys, List<String> args) {
        this.keys.check(name, keys.size());
        this.args.check(name, args.size());
    }

    private static Layout layout(String script, String kind, List<String> lines) {
        List<String> names = new ArrayList<>();
        boolean variadic = false;
        for (String line : lines) {
            Matcher m = DECLARED.matcher(line);
            if (!m.matches() || !m.group(1).equals(kind)) {
                continue;
            }
            int index = Integer.parseInt(m.group(2));
            if (variadic || index != names.size() + 1) {
                throw new IllegalArgumentException("script " + script + ": header declares " + kind + "[" + index
                        + "] out of order (positions 1, 2, ... and at most one variable tail, last)");
            }
            if (m.group(3) != null) {
                variadic = true;
            } else {
                names.add(m.group(4));
            }
        }
        return new Layout(kind, List.copyOf(names), variadic);
    }

    /** Each fixed position bound once to the local its header names; no other use by literal position. */
    private static void checkBindings(String script, List<String> lines, Layout keys, Layout args) {
        List<String> bound = new ArrayList<>();
        for (String line : lines) {
            String code = line.strip();
            if (code.startsWith("--") || !POSITIONAL.matcher(code).find()) {
                continue;
            }
            Matcher m = BOUND.matcher(code);
            if (!m.matches()) {
                throw new IllegalArgumentException("script " + script + " uses KEYS/ARGV by position outside a"
                        + " header-named local: " + code);
            }
            Layout layout = m.group(2).equals("KEYS") ? keys : args;
            int index = Integer.parseInt(m.group(3));
            if (index > layout.names().size() || !layout.names().get(index - 1).equals(m.group(1))) {
                throw new IllegalArgumentException("script " + script + ": " + code + " does not match the header "
                        + layout.kind() + " " + layout.names());
            }
            bound.add(m.group(2) + index);
        }
        for (Layout layout : List.of(keys, args)) {
            for (int i = 1; i <= layout.names().size(); i++) {
                if (!bound.contains(layout.kind() + i)) {
                    throw new IllegalArgumentException("script " + script + ": no 'local " + layout.names().get(i - 1)
                            + " = " + layout.kind() + "[" + i + "]'");
                }
            }
        }
    }

    private static List<String> read(String file) {
        String path = DIRECTORY + file;
        InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(path);
        if (in == null) {
            throw new IllegalStateException("Lua script " + path + " is not on the classpath");
        }
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            return reader.lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
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
