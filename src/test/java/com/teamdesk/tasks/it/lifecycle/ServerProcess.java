package com.teamdesk.tasks.it.lifecycle;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * One real Payara Micro process running the production WAR, as an operator starts it: {@code java
 * -jar payara-micro.jar --deploy teamdesk-tasks.war --contextroot / --port <free> --nocluster}, with
 * settings given as environment variables (MicroProfile Config: {@code TEAMDESK_WORKER_SHUTDOWN_GRACE_MS}
 * for {@code teamdesk.worker.shutdown-grace-ms}). Its console goes to a log file under
 * {@code target/lifecycle/}. {@link #close()} always ends the process: SIGTERM, then a forced kill
 * if it is still alive after 30 s.
 */
final class ServerProcess implements AutoCloseable {
    /**
     * The start of the PostgreSQL {@code application_name} of every server this class starts: as the classes of
     * their own servers run beside other classes (pom.xml, failsafe), a test that looks at or kills backends
     * picks its own servers' by name, and the in-server tests, whose connections keep the driver's name, tell
     * theirs from these.
     */
    static final String APPLICATION_NAME = "teamdesk-it";

    private static final Logger LOG = Logger.getLogger(ServerProcess.class.getName());
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String name;
    /** Payara Micro's last words when its boot failed (seen once: an HK2 race in HealthCheckService). */
    private static final String BOOT_FAILED = "Failed to start, exiting";

    private final ProcessBuilder builder;
    private volatile Process process;
    private boolean relaunched;
    private final int port;
    private final Path log;
    private volatile Instant exitedAt;

    private ServerProcess(String name, ProcessBuilder builder, Process process, int port, Path log) {
        this.name = name;
        this.builder = builder;
        this.process = process;
        this.port = port;
        this.log = log;
        watch(process);
    }

    /** Records the exit time of {@code p} while it is this server's current process. */
    private void watch(Process p) {
        p.onExit().thenRun(() -> {
            if (process == p) {
                exitedAt = Instant.now();
            }
        });
    }

    /**
     * The environment of a server on {@code data}'s private schema and the Redis {@code prefix}, with
     * {@code more} on top (one place for what every lifecycle IT's servers share).
     */
    static Map<String, String> env(PrivateSchema data, String prefix, Map<String, String> more) {
        Map<String, String> env = new java.util.HashMap<>();
        env.put("TEAMDESK_DB_URL", data.url());
        env.put("TEAMDESK_REDIS_PREFIX", prefix);
        env.putAll(more);
        return env;
    }

    /**
     * Starts one server per name with the same {@code env}, all at once, then waits until every one is ready:
     * the one way the multi-server ITs boot their instances. When one fails, those started are stopped.
     *
     * @return the servers, in the order of {@code names}
     */
    static java.util.List<ServerProcess> startReady(Duration ready, Map<String, String> env, String... names)
            throws Exception {
        java.util.List<ServerProcess> servers = new java.util.ArrayList<>();
        try {
            for (String name : names) {
                servers.add(start(name, env));
            }
            for (ServerProcess s : servers) {
                s.awaitReady(ready);
            }
            return servers;
        } catch (Exception | Error e) {
            for (ServerProcess s : servers) {
                s.close(); // a server that never became ready is not left running
            }
            throw e;
        }
    }

    /**
     * Starts a server (does not wait for it).
     *
     * @param env settings added to the test JVM's environment (database, Redis and JWT come from
     *            there, as {@code ./teamdesk test} exports them); a null value removes the variable
     */
    static ServerProcess start(String name, Map<String, String> env) throws IOException {
        return start(name, Path.of(System.getProperty("teamdesk.warFile", "target/teamdesk-tasks.war")), env);
    }

    /** Starts a server of another WAR than the production one (e.g. a test WAR, {@link SharedServer}). */
    static ServerProcess start(String name, Path warFile, Map<String, String> env) throws IOException {
        Path jar = Path.of(System.getProperty("payara.microJar", "target/payara-micro.jar")).toAbsolutePath();
        Path war = warFile.toAbsolutePath();
        if (!Files.isRegularFile(jar) || !Files.isRegularFile(war)) {
            throw new IllegalStateException("need " + jar + " and " + war + ": run the ITs through mvn verify");
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path dir = Path.of("target", "lifecycle");
        Files.createDirectories(dir);
        Path log = dir.resolve(name + "-" + port + ".log").toAbsolutePath();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m", "-XX:ThreadPriorityPolicy=1",
                "-XX:JavaPriority1_To_OSPriority=19", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Duser.timezone=America/Sao_Paulo", "-Dorg.glassfish.grizzly.http.STRICT_HEADER_VALUE_VALIDATION_RFC_9110=false",
                "-jar", jar.toString(), "--deploy", war.toString(),
                "--contextroot", "/", "--port", Integer.toString(port), "--nocluster"));
        Path classArchive = jar.resolveSibling("payara-micro.jsa"); // scripts/contract-server.sh class_archive
        if (Files.isRegularFile(classArchive)) {
            cmd.add(1, "-XX:SharedArchiveFile=" + classArchive); // ~13 % less CPU per boot; not needed
        }
        Path preBoot = Path.of("server-config", "pre-boot-commands.asadmin").toAbsolutePath();
        if (Files.isRegularFile(preBoot)) {
            cmd.addAll(List.of("--prebootcommandfile", preBoot.toString())); // as ./teamdesk up and Docker do
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        env.forEach((k, v) -> {
            if (v == null) {
                pb.environment().remove(k); // a setting the test wants absent, as on an operator's bare host
            } else {
                pb.environment().put(k, v);
            }
        });
        String db = pb.environment().get("TEAMDESK_DB_URL");
        if (db != null && !db.contains("ApplicationName=")) {
            pb.environment().put("TEAMDESK_DB_URL", db + (db.contains("?") ? "&" : "?") + "ApplicationName="
                    + applicationName(name));
        }
        Process p = pb.start();
        LOG.info(() -> "started " + name + " (pid " + p.pid() + ", port " + port + "), log " + log);
        return new ServerProcess(name, pb, p, port, log);
    }

    /**
     * @param name a server's name, as given to {@link #start(String, Map)}
     * @return the PostgreSQL {@code application_name} of that server's connections, {@value #APPLICATION_NAME}{@code
     *         -<name>}, unless its {@code TEAMDESK_DB_URL} names them itself (OutageIT)
     */
    static String applicationName(String name) {
        return APPLICATION_NAME + "-" + name;
    }

    /** @return the OS process */
    Process process() {
        return process;
    }

    /** @return when the process exited, or null while it runs */
    Instant exitedAt() {
        return exitedAt;
    }

    /** @return the server's root URI */
    URI root() {
        return URI.create("http://127.0.0.1:" + port + "/");
    }

    /**
     * Waits until {@code GET /health} answers 200 (ready: database, Redis and the worker's heartbeat),
     * bounded; fails early if the process ends.
     *
     * @return the health document
     */
    JsonObject awaitReady(Duration max) throws Exception {
        Instant deadline = Instant.now().plus(max);
        String last = "no answer";
        while (Instant.now().isBefore(deadline)) {
            if (!relaunched && bootFailed()) {
                relaunch();
                continue;
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited (" + process.exitValue() + ") before it was ready; see " + log);
            }
            Optional<HttpResponse<String>> r = health();
            if (r.isPresent()) {
                last = r.get().statusCode() + " " + r.get().body();
                if (r.get().statusCode() == 200) {
                    return json(r.get().body());
                }
            }
            Thread.sleep(500);
        }
        throw new AssertionError(name + " not ready within " + max + " (last /health: " + last + "); see " + log);
    }

    /**
     * Payara Micro 6.2025.10 sometimes fails its own boot (an HK2 {@code ConcurrentModificationException}
     * while creating {@code HealthCheckService}), logs {@link #BOOT_FAILED} and then hangs instead of
     * exiting. That is the platform's race, not the application's: the test starts the same command once
     * more (same port, log appended), loudly, and a second failure fails the test.
     */
    private boolean bootFailed() {
        try {
            return Files.readString(log).contains(BOOT_FAILED);
        } catch (IOException e) {
            return false;
        }
    }

    private void relaunch() throws IOException, InterruptedException {
        relaunched = true;
        LOG.warning(() -> name + ": Payara Micro failed its boot (\"" + BOOT_FAILED + "\", see " + log
                + "); starting it once more");
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        Path first = log.resolveSibling(log.getFileName() + ".boot-failed");
        Files.move(log, first, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Process p = builder.start();
        process = p;
        exitedAt = null;
        watch(p);
    }

    /** @return the {@code data} of the application's health check in a health document */
    static JsonObject checkData(JsonObject health) {
        for (JsonValue v : health.getJsonArray("checks")) {
            JsonObject c = v.asJsonObject();
            if ("teamdesk-tasks".equals(c.getString("name", ""))) {
                return c.getJsonObject("data");
            }
        }
        throw new AssertionError("no teamdesk-tasks check in " + health);
    }

    /** @return the answer of {@code GET /health}, or empty when the server does not answer */
    Optional<HttpResponse<String>> health() throws InterruptedException {
        try {
            return Optional.of(HTTP.send(HttpRequest.newBuilder(root().resolve("health"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()));
        } catch (ConnectException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Sends SIGTERM ({@link Process#destroy()} on Unix), as an orchestrator stopping the container. */
    Instant sigterm() {
        Instant at = Instant.now();
        process.destroy();
        return at;
    }

    /** @return true when the process exited within {@code max} */
    boolean awaitExit(Duration max) throws InterruptedException {
        boolean exited = process.waitFor(max.toMillis(), TimeUnit.MILLISECONDS);
        if (exited && exitedAt == null) {
            exitedAt = Instant.now(); // waitFor returns at the exit; the onExit callback may still be pending
        }
        return exited;
    }

    /** @return the console log file */
    Path logFile() {
        return log;
    }

    /** Ends the process whatever state it is in: SIGTERM, then a forced kill after 30 s. */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    LOG.warning(() -> name + " ignored SIGTERM for 30 s; killing it");
                    process.destroyForcibly();
                    process.waitFor(30, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Sends one request to this server, bounded by 150 s.
     *
     * @param path  relative to the root, e.g. {@code api/v1/admin/capacity}
     * @param token a bearer token, or null for none
     * @param body  a JSON body, or null for none
     */
    HttpResponse<String> send(String method, String path, String token, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(root().resolve(path)).timeout(Duration.ofSeconds(150))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** @return the JSON object in {@code text} */
    static JsonObject json(String text) {
        try (JsonReader r = Json.createReader(new StringReader(text))) {
            return r.readObject();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", port " + port + ")";
    }
}
