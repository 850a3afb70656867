package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/** The Lua files, their headers and the loader's checks (no Redis needed). */
class LuaScriptTest {

    private static final UnifiedJedis NO_REDIS = null;

    @Test
    void everyFileIsOneRegisteredScriptWithItsIncludesExpanded() throws Exception {
        TreeSet<String> files = new TreeSet<>();
        for (Path p : luaFiles()) {
            files.add(p.getFileName().toString().replaceFirst("\\.lua$", ""));
        }
        assertTrue(files.remove("helpers"), "helpers.lua is included, not run");
        TreeSet<String> registered = new TreeSet<>();
        for (LuaScript script : registeredScripts()) {
            registered.add(script.name());
            assertTrue(script.source().lines().noneMatch(l -> l.startsWith("--!include")), script.name());
            assertFalse(script.source().isBlank(), script.name());
        }
        assertEquals(files, registered, "each file in queue/lua is one QueueScripts constant");
    }

    @Test
    void scriptsThatIncludeTheHelpersCarryThemVerbatim() {
        String helpers = LuaScript.expand("helpers.lua");
        assertTrue(QueueScripts.FAIL.source().contains(helpers));
        assertTrue(QueueScripts.MOVE_TO_ACTIVE.source().contains("local function fetchMany("));
        assertFalse(QueueScripts.COUNTS.source().contains("local function"), "counts includes nothing");
    }

    @Test
    void theDebugExpansionScriptPrintsExactlyTheTextSentToRedis() throws Exception {
        for (LuaScript script : registeredScripts()) {
            Process p = new ProcessBuilder("bash", "scripts/lua-expand.sh", script.name())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(10, TimeUnit.SECONDS), "lua-expand.sh ended");
            assertEquals(0, p.exitValue(), script.name());
            assertEquals(script.source(), printed, script.name());
        }
    }

    @Test
    void aCallWithAnotherNumberOfKeysOrArgumentsThanTheHeaderIsRefusedBeforeRedis() {
        List<String> tenArgs = Collections.nCopies(10, "0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> QueueScripts.ADD.eval(NO_REDIS, List.of("j", "w", "d"), tenArgs));
        assertTrue(e.getMessage().contains("takes 6 KEYS [jobKey, waitKey, delayedKey, markerKey, lanesKey, seqKey], got 3"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> QueueScripts.ADD.eval(NO_REDIS, List.of("j", "w", "d", "m"), List.of("id")));
        assertThrows(IllegalArgumentException.class,
                () -> QueueScripts.EXTEND_LOCKS.eval(NO_REDIS, List.of("a:lock"), List.of()),
                "extendLocks needs at least lockDurationMs");
    }

    @Test
    void headerAndLocalsMustAgree() {
        assertThrows(IllegalArgumentException.class,
                () -> new LuaScript("renamed", "-- KEYS[1] waitKey\nlocal wait = KEYS[1]\nreturn 1\n"));
        assertThrows(IllegalArgumentException.class,
                () -> new LuaScript("unbound", "-- KEYS[1] waitKey\nreturn redis.call('LLEN', 'x')\n"));
        assertThrows(IllegalArgumentException.class,
                () -> new LuaScript("positional", "-- KEYS[1] waitKey\nlocal waitKey = KEYS[1]\n"
                        + "return redis.call('LLEN', KEYS[1])\n"));
        assertThrows(IllegalArgumentException.class,
                () -> new LuaScript("undeclared", "local waitKey = KEYS[1]\nreturn 1\n"));
        assertThrows(IllegalArgumentException.class,
                () -> new LuaScript("gap", "-- ARGV[2] b\nlocal b = ARGV[2]\nreturn b\n"));
        LuaScript ok = new LuaScript("ok", "-- KEYS[1] waitKey\n-- ARGV[1..] ids\nlocal waitKey = KEYS[1]\n"
                + "return redis.call('LLEN', waitKey) + #ARGV\n");
        assertEquals("ok", ok.name());
    }

    private static List<LuaScript> registeredScripts() throws IllegalAccessException {
        List<LuaScript> scripts = new java.util.ArrayList<>();
        for (Field f : QueueScripts.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == LuaScript.class) {
                scripts.add((LuaScript) f.get(null));
            }
        }
        return scripts;
    }

    private static List<Path> luaFiles() throws IOException, URISyntaxException {
        Path dir = Path.of(Objects.requireNonNull(
                LuaScriptTest.class.getClassLoader().getResource(LuaScript.DIRECTORY), "queue/lua on the classpath").toURI());
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".lua")).toList();
        }
    }
}
