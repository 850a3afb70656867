package com.teamdesk.tasks.it.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain {@link Socket}, for requests the JDK's {@code HttpClient} refuses to send:
 * bad percent-encoding, raw braces, non-ASCII or control bytes in headers. One request per
 * connection ({@code Connection: close}); the answer is read to the end.
 */
public final class RawHttp {
    private RawHttp() {
    }

    /** An answer: status, headers (names lower-case, last value wins), body and the status line as sent. */
    public record Answer(int status, Map<String, String> headers, byte[] body, String statusLine) {
        /** @return the body as UTF-8 */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** @return a header by case-insensitive name, or null */
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /**
     * Sends {@code method target HTTP/1.1} with {@code Host}, {@code Connection: close}, the given
     * header lines (raw bytes, ISO-8859-1 for chars up to 0xFF) and an optional body.
     *
     * @param headerLines e.g. {@code "Authorization: Bearer x"}; no CRLF
     */
    public static Answer send(URI root, String method, String target, byte[] body, String... headerLines) {
        try (Socket s = new Socket(root.getHost(), root.getPort())) {
            s.setSoTimeout(30_000);
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            req.writeBytes((method + " " + target + " HTTP/1.1\r\nHost: " + root.getHost() + ":" + root.getPort()
                    + "\r\nConnection: close\r\n").getBytes(StandardCharsets.ISO_8859_1));
            for (String h : headerLines) {
                req.writeBytes((h + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            }
            if (body != null) {
                req.writeBytes(("Content-Length: " + body.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            }
            req.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) {
                req.writeBytes(body);
            }
            OutputStream out = s.getOutputStream();
            out.write(req.toByteArray());
            out.flush();
            return parse(s.getInputStream().readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + target, e);
        }
    }

    private static Answer parse(byte[] raw) throws IOException {
        String all = new String(raw, StandardCharsets.ISO_8859_1);
        int end = all.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no complete answer head: " + all);
        }
        String[] lines = all.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
            }
        }
        byte[] body = all.substring(end + 4).getBytes(StandardCharsets.ISO_8859_1);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(new java.io.ByteArrayInputStream(body));
        }
        return new Answer(status, headers, body, lines[0]);
    }

    private static byte[] dechunk(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            StringBuilder size = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                if (c != '\r') {
                    size.append((char) c);
                }
            }
            String hex = size.toString().split(";")[0].strip();
            if (hex.isEmpty()) {
                return out.toByteArray();
            }
            int n = Integer.parseInt(hex, 16);
            if (n == 0) {
                return out.toByteArray();
            }
            out.write(in.readNBytes(n));
            in.read();
            in.read();
        }
    }
}
