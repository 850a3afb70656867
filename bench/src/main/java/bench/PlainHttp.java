package bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One blocking HTTP/1.1 keep-alive connection to 127.0.0.1, for the closed loops of P2's API figure: the
 * calling thread writes a request and reads its answer itself, as wrk or ApacheBench do. The JDK's
 * {@code java.net.http.HttpClient} hands every exchange between the caller and its selector thread, which on
 * this 2-core machine cost the driver ~2.5-2.9 ms of CPU per request (more than the server's own request
 * handling), CPU the server under test then did not get (bench/notes/P2.md). Not thread-safe: one per client
 * thread. Understands what our server answers: a status line, headers, and a body of {@code Content-Length}
 * bytes or chunked; reconnects when the server closed the connection.
 */
final class PlainHttp implements Closeable {

    /** A response: status code and body text (UTF-8). */
    record Response(int status, String body) {
    }

    private final String host;
    private final int port;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    PlainHttp(String base) {
        URI uri = URI.create(base);
        if (!"127.0.0.1".equals(uri.getHost()) || !"http".equals(uri.getScheme())) {
            throw new IllegalArgumentException("benchmarks talk to http://127.0.0.1 only: " + base);
        }
        this.host = uri.getHost();
        this.port = uri.getPort() < 0 ? 80 : uri.getPort();
    }

    /**
     * POSTs {@code body} (JSON) to {@code path} with a bearer token and reads the whole answer.
     *
     * @throws IOException when the connection fails twice in a row, or the answer is not HTTP/1.1 as expected
     */
    Response postJson(String path, String token, String body) throws IOException {
        byte[] payload = body.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: " + payload.length
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        for (int attempt = 0; ; attempt++) {
            boolean fresh = socket == null;
            try {
                connectIfNeeded();
                out.write(head);
                out.write(payload);
                out.flush();
                return read();
            } catch (IOException e) {
                close();
                // A kept-alive connection the server closed meanwhile fails on first use: one retry on a new one.
                if (fresh || attempt > 0) {
                    throw e;
                }
            }
        }
    }

    private void connectIfNeeded() throws IOException {
        if (socket == null) {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), 5000);
            s.setSoTimeout(60_000);
            socket = s;
            in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
            out = s.getOutputStream();
        }
    }

    private Response read() throws IOException {
        String status = line();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
            throw new IOException("not an HTTP/1.1 status line: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean closeAfter = false;
        for (String h = line(); !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = h.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "connection" -> closeAfter = value.equalsIgnoreCase("close");
                default -> { }
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (long size = Long.parseLong(line().split(";")[0].trim(), 16); size > 0;
                    size = Long.parseLong(line().split(";")[0].trim(), 16)) {
                copy(size, body);
                line(); // the CRLF after the chunk
            }
            while (!line().isEmpty()) { // trailers
            }
        } else if (length >= 0) {
            copy(length, body);
        } else {
            in.transferTo(body); // no length: the body ends with the connection
            closeAfter = true;
        }
        if (closeAfter) {
            close();
        }
        return new Response(code, body.toString(StandardCharsets.UTF_8));
    }

    private void copy(long n, OutputStream to) throws IOException {
        byte[] buf = new byte[8192];
        while (n > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (r < 0) {
                throw new IOException("the connection closed inside a body");
            }
            to.write(buf, 0, r);
            n -= r;
        }
    }

    /** A header line without its CRLF. */
    private String line() throws IOException {
        StringBuilder sb = new StringBuilder(64);
        for (int c = in.read(); ; c = in.read()) {
            if (c < 0) {
                throw new IOException("the connection closed inside a header");
            }
            if (c == '\n') {
                int end = sb.length();
                return end > 0 && sb.charAt(end - 1) == '\r' ? sb.substring(0, end - 1) : sb.toString();
            }
            sb.append((char) c);
        }
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        socket = null;
        in = null;
        out = null;
    }
}
