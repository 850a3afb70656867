package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Requests the HTTP engine (Grizzly, under Payara's Catalina) handles before or around the application
 * (issue 49, items 7-9), sent byte for byte over a socket with a bounded read time, so that an answer that
 * never ends fails the test instead of waiting for the server's idle timeout:
 * <ul>
 * <li>CONNECT, in origin form and in authority form: a complete 405 problem+json and the connection closed at
 * once, with or without a token;</li>
 * <li>paths ending in {@code /..} or {@code /.} of every length from 60 to 200 characters, three times each (the
 * engine's URI normalizer failed on some of them, depending on which of its pooled buffers a request got, and
 * answered an empty 200), and an operator's PUT to such a path: always 400 problem+json, nothing stored;</li>
 * <li>a NUL, a non-UTF-8 byte, an encoded backslash or a broken escape in the path (the engine answered an empty
 * 400 or 200): 400 problem+json ({@code EnginePathGuard});</li>
 * <li>a request head over the listener's 256 KiB: still the engine's empty 400, ended at once (the documented
 * residue, docs/operations.md); just under it the application's 431 problem+json.</li>
 * </ul>
 * Worker and timers are off, so only the requests themselves could change a row.
 */
@Execution(ExecutionMode.SAME_THREAD)
class ContainerEdgeIT {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.apiOnly();

    /** Longest a complete answer may take here; Grizzly's idle timeout, which ended the CONNECT hang, is 30 s. */
    private static final int READ_LIMIT_MS = 5_000;
    /** Asks for the connection to end after the answer, so that reading to the end is reading the answer. */
    private static final String CLOSE = "Connection: close";

    final URL url = SERVER.url();

    final TestData data = TestData.fromEnvironment();

    /**
     * What came back on one connection: the raw bytes, whether the server closed the connection within
     * {@link #READ_LIMIT_MS}, and how long that took.
     */
    record Exchange(byte[] raw, boolean closed, long millis, String resetBy) {
        int status() {
            String head = head();
            return head == null ? -1 : Integer.parseInt(head.split("\r\n")[0].split(" ")[1]);
        }

        String head() {
            String all = new String(raw, StandardCharsets.ISO_8859_1);
            int end = all.indexOf("\r\n\r\n");
            return end < 0 ? null : all.substring(0, end);
        }

        /** @return header value by case-insensitive name, or null */
        String header(String name) {
            String head = head();
            if (head == null) {
                return null;
            }
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).strip().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).strip();
                }
            }
            return null;
        }

        /** @return everything after the head, de-chunked (the server closed the connection: this is the whole body) */
        String body() {
            String all = new String(raw, StandardCharsets.ISO_8859_1);
            int end = all.indexOf("\r\n\r\n");
            String rest = end < 0 ? "" : all.substring(end + 4);
            if ("chunked".equalsIgnoreCase(header("Transfer-Encoding"))) {
                StringBuilder body = new StringBuilder();
                int at = 0;
                for (int eol = rest.indexOf("\r\n", at); eol > at; eol = rest.indexOf("\r\n", at)) {
                    int size = Integer.parseInt(rest.substring(at, eol).split(";")[0].strip(), 16);
                    body.append(rest, eol + 2, eol + 2 + size);
                    at = eol + 2 + size + 2;
                }
                rest = body.toString();
            }
            return new String(rest.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            String all = new String(raw, StandardCharsets.ISO_8859_1);
            return (closed ? "closed" : "STILL OPEN") + " after " + millis + " ms" + (resetBy == null ? "" : " (" + resetBy + ")")
                    + ": " + (all.length() > 600 ? all.substring(0, 600) + "..." : all);
        }
    }

    /**
     * Sends {@code request} as is and reads until the server closes the connection or {@link #READ_LIMIT_MS}
     * passes. A reset (the server closing with our bytes unread) ends the read like a close.
     */
    Exchange exchange(byte[] request) {
        URI root = Api.at(url).root();
        long start = System.nanoTime();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (Socket s = new Socket(root.getHost(), root.getPort())) {
            s.setSoTimeout(READ_LIMIT_MS);
            String reset = null;
            try {
                OutputStream out = s.getOutputStream();
                out.write(request);
                out.flush();
            } catch (SocketException e) {
                reset = "write: " + e.getMessage(); // refused before all was sent; read what it answered
            }
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            boolean closed = false;
            try {
                int n;
                while ((n = in.read(buf)) != -1) {
                    got.write(buf, 0, n);
                }
                closed = true;
            } catch (SocketTimeoutException e) {
                closed = false;
            } catch (SocketException e) {
                closed = true;
                reset = "read: " + e.getMessage();
            }
            return new Exchange(got.toByteArray(), closed, (System.nanoTime() - start) / 1_000_000, reset);
        } catch (IOException e) {
            throw new IllegalStateException("exchange with " + root, e);
        }
    }

    static byte[] request(String method, String target, String... headerLines) {
        return withBody(method, target, null, headerLines);
    }

    /** @return the request's bytes; a non-null {@code body} is sent as JSON with its Content-Length */
    static byte[] withBody(String method, String target, String body, String... headerLines) {
        StringBuilder b = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (String h : headerLines) {
            b.append(h).append("\r\n");
        }
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            b.append("Content-Type: application/json\r\nContent-Length: ").append(content.length).append("\r\n");
        }
        b.append("\r\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(b.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.writeBytes(content);
        return out.toByteArray();
    }

    static JsonObject problem(Exchange x) {
        String type = x.header("Content-Type");
        assertNotNull(type, "no Content-Type: " + x);
        assertTrue(type.startsWith("application/problem+json"), x.toString());
        try (JsonReader r = Json.createReader(new StringReader(x.body()))) {
            JsonObject p = r.readObject();
            for (String field : List.of("type", "title", "status", "detail", "code")) {
                assertTrue(p.containsKey(field), field + " missing: " + x);
            }
            assertEquals(x.status(), p.getInt("status"), x.toString());
            return p;
        }
    }

    /**
     * Item 7: CONNECT is refused with a framed answer — the connection closes right after the 405 — on API paths,
     * the console's root and a path that does not exist; without a token, with a valid one and with a forged one:
     * the method is refused whoever asks (docs/decisions.md). Before, the 405 came without Content-Length and the
     * connection stayed open for Grizzly's 30 s idle timeout, so a client never knew the body had ended.
     */
    @Test
    void connectIsRefusedWithA405AndTheConnectionEndsAtOnce() {
        TestTeam t = data.newTeam();
        List<String> auths = List.of("X-None: 1", "Authorization: Bearer " + Tokens.of(t.owner()),
                "Authorization: Bearer not.a.token");
        List<String> targets = List.of("/api/v1/me", "/api/v1/teams/" + t.id() + "/tasks", "/", "/api/v1/nope");
        for (String target : targets) {
            for (String auth : auths) {
                Exchange x = exchange(request("CONNECT", target, auth));
                assertTrue(x.closed(), "CONNECT " + target + " [" + auth.split(":")[0] + "] not ended: " + x);
                assertEquals(405, x.status(), x.toString());
                assertEquals("request.method_not_allowed", problem(x).getString("code"), x.toString());
                assertNotNull(x.header("Allow"), x.toString());
                assertEquals("close", x.header("Connection"), x.toString());
            }
        }
        // The authority form a proxy client sends: the engine refused it before the application (an empty 400 it
        // never ended); now it takes the same course.
        Exchange authority = exchange(request("CONNECT", "127.0.0.1:443"));
        assertTrue(authority.closed(), authority.toString());
        assertEquals(405, authority.status(), authority.toString());
        assertEquals("request.method_not_allowed", problem(authority).getString("code"), authority.toString());
        // A keep-alive request on the same connection after a CONNECT is never served: the connection is gone.
        Exchange two = exchange(concat(request("CONNECT", "/api/v1/me"), request("GET", "/health")));
        assertTrue(two.closed(), two.toString());
        assertEquals(1, count(new String(two.raw(), StandardCharsets.ISO_8859_1), "HTTP/1.1 "), two.toString());
    }

    /**
     * Item 8: a path ending in {@code /..} or {@code /.}, of every length from 60 to 200 characters and 3 times
     * each (282 paths, 846 requests), on a GET without a token, and 30 operator PUTs to such paths below a team's
     * limits. Before {@code EnginePathGuard} about a third of them got the engine's empty 200 (its normalizer threw
     * and the exception was swallowed); now every one is 400 problem+json {@code request.path_invalid}, and the cap
     * is never stored nor audited.
     */
    @Test
    void dotSegmentPathsAtTheEndNeverReachAResourceAndChangeNothing() {
        TestTeam t = data.newTeam();
        String ops = Tokens.with(data.user("ops-" + t.id().toString().substring(0, 8)), Json.createObjectBuilder()
                .add("groups", Json.createArrayBuilder().add("member").add("operator")));
        Map<String, Integer> answers = new TreeMap<>();
        List<String> targets = new ArrayList<>();
        for (int length = 60; length <= 200; length++) {
            targets.add("/api/v1/" + "a".repeat(length - "/api/v1/".length() - 3) + "/..");
            targets.add("/api/v1/" + "a".repeat(length - "/api/v1/".length() - 2) + "/.");
        }
        for (int round = 0; round < 3; round++) {
            for (String target : targets) {
                answers.merge(check(exchange(request("GET", target, CLOSE)), target), 1, Integer::sum);
            }
        }
        String limits = "/api/v1/admin/teams/" + t.id() + "/limits";
        for (int i = 0; i < 30; i++) {
            String target = i % 2 == 0 ? limits + "/.." : limits + "/EXPORT/" + "b".repeat(i) + "/..";
            Exchange x = exchange(withBody("PUT", target, i % 2 == 0 ? "{\"maxRunning\":1}" : "{\"perMinute\":1}",
                    "Authorization: Bearer " + ops, CLOSE));
            answers.merge(check(x, target), 1, Integer::sum);
        }
        assertEquals(Map.of("400 request.path_invalid", targets.size() * 3 + 30), answers);
        assertEquals(0L, data.count("SELECT count(*) FROM team_queue_limit WHERE team_id = ?", t.id()),
                "a refused PUT stored a cap");
        assertEquals(0L, data.count("SELECT count(*) FROM system_event WHERE team_id = ?", t.id()),
                "a refused PUT was audited as done");
    }

    /** @return the kind of the answer to a dot-segment path, which must be the application's 400 problem+json */
    private static String check(Exchange x, String target) {
        assertTrue(x.closed(), target + ": not ended: " + x);
        assertEquals(400, x.status(), target + ": " + x);
        assertEquals("request.path_invalid", problem(x).getString("code"), target + ": " + x);
        return "400 request.path_invalid";
    }

    /**
     * Item 9: paths the engine could not decode — a NUL, a byte that is not UTF-8, an overlong slash, an encoded
     * backslash, a broken escape — were answered by it before any application code (an empty 400, or an empty 200
     * for the broken escape); now each is 400 problem+json {@code request.path_invalid} on any path, or, with a
     * forged token, 401 problem+json as for every other path (the credential is checked before any filter). A
     * request head over the listener's 256 KiB is still the engine's empty 400 (docs/operations.md): it is
     * refused while the head is read, before any request exists; just under it the application answers 431.
     */
    @Test
    void pathsTheEngineCannotDecodeGetProblemJsonAndAnOversizedHeadAnEmpty400() {
        for (String target : List.of("/api/v1/me%00", "/api/v1/a%ffb", "/api/v1/%c0%af", "/api/v1/a%5cb", "/%00",
                "/api/v1/a%zzb", "/console/%zz", "/api/v1/a%")) {
            Exchange x = exchange(request("GET", target, CLOSE));
            assertTrue(x.closed(), target + ": " + x);
            assertEquals(400, x.status(), target + ": " + x);
            assertEquals("request.path_invalid", problem(x).getString("code"), target + ": " + x);
            Exchange forged = exchange(request("GET", target, "Authorization: Bearer not.a.token", CLOSE));
            assertEquals(401, forged.status(), target + ": " + forged);
            assertEquals("auth.required", problem(forged).getString("code"), target + ": " + forged);
        }
        Exchange big = exchange(request("GET", "/api/v1/me", "X-Big: " + "b".repeat(300 * 1024), CLOSE));
        assertTrue(big.closed(), big.toString());
        if (big.raw().length > 0) { // the engine may close before the client has finished writing: then no answer
            assertEquals(400, big.status(), big.toString());
            assertEquals("0", big.header("Content-Length"), big.toString());
        }
        Exchange under = exchange(request("GET", "/api/v1/me", "X-Big: " + "b".repeat(200 * 1024), CLOSE));
        assertEquals(431, under.status(), under.toString());
        assertEquals("request.header_too_large", problem(under).getString("code"));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

}
