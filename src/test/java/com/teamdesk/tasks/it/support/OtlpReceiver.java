package com.teamdesk.tasks.it.support;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace receiver in the test JVM (issue 32, R45): what a collector (Jaeger, Tempo, the OpenTelemetry
 * Collector) is to a server under test. The server's own exporter (Payara's OpenTelemetry SDK, {@code
 * otel.exporter.otlp.protocol=http/protobuf}) posts {@code ExportTraceServiceRequest}s to {@code /v1/traces}; they are
 * decoded here from the protobuf wire format (only the fields a test reads: ids, parent, name, kind, attributes,
 * links) and kept in arrival order.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** A link of a span: the linked span's ids and the link's attributes. */
    public record Link(String traceId, String spanId, Map<String, Object> attributes) {
    }

    /**
     * One received span. Ids are lower-case hex; {@code parentSpanId} is empty for a root span; attribute values
     * are String, Long, Boolean or Double; {@code kind} is OTLP's SpanKind number (1 internal, 2 server, 3 client,
     * 4 producer, 5 consumer).
     */
    public record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name, int kind,
            Map<String, Object> attributes, List<Link> links) {
        /** @return the attribute, or null */
        public Object attribute(String key) {
            return attributes.get(key);
        }
    }

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    /** Starts a receiver on 127.0.0.1 at a free port. */
    public static OtlpReceiver start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            OtlpReceiver receiver = new OtlpReceiver(server);
            server.createContext("/", exchange -> {
                try (exchange) {
                    byte[] body = exchange.getRequestBody().readAllBytes();
                    if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                        body = gunzip(body);
                    }
                    if (exchange.getRequestURI().getPath().endsWith("/v1/traces")) {
                        receiver.spans.addAll(decodeRequest(body));
                    }
                    exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
                    exchange.sendResponseHeaders(200, -1); // an empty ExportTraceServiceResponse: all accepted
                }
            });
            server.start();
            return receiver;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the endpoint to give as {@code otel.exporter.otlp.endpoint} */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /**
     * @return the server's settings that turn tracing on (MicroProfile Telemetry) and send its spans here at once
     *         (OTLP/HTTP, a 50 ms batch delay), for a deployment's overrides
     */
    public Map<String, String> serverConfig() {
        return Map.of("otel.sdk.disabled", "false", "otel.service.name", "teamdesk-tasks", "otel.traces.exporter", "otlp",
                "otel.metrics.exporter", "none", "otel.logs.exporter", "none", "otel.exporter.otlp.protocol",
                "http/protobuf", "otel.exporter.otlp.endpoint", endpoint(), "otel.bsp.schedule.delay", "50");
    }

    /** @return every span received so far */
    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    /**
     * Waits (bounded, polling every 20 ms: the exporter's batches come when they come) until at least {@code count}
     * received spans match.
     *
     * @return the matching spans in arrival order
     * @throws AssertionError when fewer arrived within {@code timeoutMs}
     */
    public List<ReceivedSpan> await(Predicate<ReceivedSpan> match, int count, long timeoutMs, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (true) {
            List<ReceivedSpan> found = spans.stream().filter(match).toList();
            if (found.size() >= count) {
                return found;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected " + count + " span(s) " + what + ", got " + found.size()
                        + "; received: " + spans);
            }
            Thread.sleep(20);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private static byte[] gunzip(byte[] body) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(body))) {
            return in.readAllBytes();
        }
    }

    // ---- the protobuf wire format, as far as opentelemetry/proto/trace/v1 needs it ----

    static List<ReceivedSpan> decodeRequest(byte[] body) {
        List<ReceivedSpan> out = new ArrayList<>();
        for (Field resourceSpans : fields(body, 1)) { // ExportTraceServiceRequest.resource_spans
            for (Field scopeSpans : fields(resourceSpans.bytes, 2)) { // ResourceSpans.scope_spans
                for (Field span : fields(scopeSpans.bytes, 2)) { // ScopeSpans.spans
                    out.add(decodeSpan(span.bytes));
                }
            }
        }
        return out;
    }

    private static ReceivedSpan decodeSpan(byte[] b) {
        String traceId = "";
        String spanId = "";
        String parent = "";
        String name = "";
        int kind = 0;
        Map<String, Object> attributes = new LinkedHashMap<>();
        List<Link> links = new ArrayList<>();
        for (Field f : fields(b, -1)) {
            switch (f.number) {
                case 1 -> traceId = HexFormat.of().formatHex(f.bytes);
                case 2 -> spanId = HexFormat.of().formatHex(f.bytes);
                case 4 -> parent = HexFormat.of().formatHex(f.bytes);
                case 5 -> name = new String(f.bytes, StandardCharsets.UTF_8);
                case 6 -> kind = (int) f.varint;
                case 9 -> attribute(f.bytes, attributes);
                case 13 -> links.add(decodeLink(f.bytes));
                default -> { }
            }
        }
        return new ReceivedSpan(traceId, spanId, parent, name, kind, attributes, links);
    }

    private static Link decodeLink(byte[] b) {
        String traceId = "";
        String spanId = "";
        Map<String, Object> attributes = new LinkedHashMap<>();
        for (Field f : fields(b, -1)) {
            switch (f.number) {
                case 1 -> traceId = HexFormat.of().formatHex(f.bytes);
                case 2 -> spanId = HexFormat.of().formatHex(f.bytes);
                case 4 -> attribute(f.bytes, attributes);
                default -> { }
            }
        }
        return new Link(traceId, spanId, attributes);
    }

    /** A KeyValue {1: key, 2: AnyValue {1 string, 2 bool, 3 int, 4 double}}. */
    private static void attribute(byte[] b, Map<String, Object> into) {
        String key = null;
        Object value = null;
        for (Field f : fields(b, -1)) {
            if (f.number == 1) {
                key = new String(f.bytes, StandardCharsets.UTF_8);
            } else if (f.number == 2) {
                for (Field v : fields(f.bytes, -1)) {
                    value = switch (v.number) {
                        case 1 -> new String(v.bytes, StandardCharsets.UTF_8);
                        case 2 -> v.varint != 0;
                        case 3 -> v.varint;
                        case 4 -> Double.longBitsToDouble(v.varint);
                        default -> value;
                    };
                }
            }
        }
        if (key != null) {
            into.put(key, value);
        }
    }

    /** One field: its number, and its value as a number (varint, fixed) or as bytes (length-delimited). */
    private record Field(int number, long varint, byte[] bytes) {
    }

    /** @return the fields of a message, all of them ({@code only < 0}) or those numbered {@code only} */
    private static List<Field> fields(byte[] b, int only) {
        List<Field> out = new ArrayList<>();
        int[] pos = {0};
        while (pos[0] < b.length) {
            long tag = varint(b, pos);
            int number = (int) (tag >>> 3);
            int type = (int) (tag & 7);
            Field f;
            switch (type) {
                case 0 -> f = new Field(number, varint(b, pos), null);
                case 1 -> {
                    f = new Field(number, fixed(b, pos[0], 8), null);
                    pos[0] += 8;
                }
                case 2 -> {
                    int len = (int) varint(b, pos);
                    byte[] bytes = new byte[len];
                    System.arraycopy(b, pos[0], bytes, 0, len);
                    pos[0] += len;
                    f = new Field(number, 0, bytes);
                }
                case 5 -> {
                    f = new Field(number, fixed(b, pos[0], 4), null);
                    pos[0] += 4;
                }
                default -> throw new IllegalArgumentException("unsupported protobuf wire type " + type);
            }
            if (only < 0 || number == only) {
                out.add(f);
            }
        }
        return out;
    }

    private static long varint(byte[] b, int[] pos) {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte x = b[pos[0]++];
            value |= (long) (x & 0x7f) << shift;
            if ((x & 0x80) == 0) {
                return value;
            }
        }
        throw new IllegalArgumentException("varint too long");
    }

    private static long fixed(byte[] b, int at, int bytes) {
        long value = 0;
        for (int i = bytes - 1; i >= 0; i--) {
            value = (value << 8) | (b[at + i] & 0xff);
        }
        return value;
    }
}
