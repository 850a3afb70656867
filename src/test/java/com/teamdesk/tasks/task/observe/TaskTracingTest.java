package com.teamdesk.tasks.task.observe;

import com.teamdesk.tasks.task.export.ExportSpans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** R45: the W3C {@code traceparent} text, the job payload's, and the off switch (no tracer, no span). */
class TaskTracingTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN = "00f067aa0ba902b7";

    @Test
    void aTraceParentIsFormattedAndParsedAsW3C() {
        SpanContext sampled = SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), TraceState.getDefault());
        String text = TaskTracing.traceParent(sampled);
        assertEquals("00-" + TRACE + "-" + SPAN + "-01", text);
        SpanContext parsed = TaskTracing.spanContext(text);
        assertEquals(TRACE, parsed.getTraceId());
        assertEquals(SPAN, parsed.getSpanId());
        assertTrue(parsed.isSampled());
        assertTrue(parsed.isRemote(), "a context read back is another process's");
        assertEquals("00-" + TRACE + "-" + SPAN + "-00",
                TaskTracing.traceParent(SpanContext.create(TRACE, SPAN, TraceFlags.getDefault(), TraceState.getDefault())));
    }

    @Test
    void anInvalidTraceParentIsNone() {
        assertNull(TaskTracing.spanContext(null));
        assertNull(TaskTracing.spanContext(""));
        assertNull(TaskTracing.spanContext("00-" + TRACE + "-" + SPAN));
        assertNull(TaskTracing.spanContext("00-00000000000000000000000000000000-" + SPAN + "-01"), "all-zero trace id");
        assertNull(TaskTracing.spanContext("00-" + TRACE + "-0000000000000000-01"), "all-zero span id");
        assertNull(TaskTracing.spanContext("not a traceparent"));
    }

    @Test
    void theJobPayloadCarriesTheTraceParentOrNone() {
        String tp = "00-" + TRACE + "-" + SPAN + "-01";
        assertEquals(tp, TaskTracing.traceParentOf("{\"taskId\":\"t\",\"run\":0,\"traceparent\":\"" + tp + "\"}"));
        assertNull(TaskTracing.traceParentOf("{\"taskId\":\"t\",\"run\":0}"));
        assertNull(TaskTracing.traceParentOf("{\"taskId\":\"t\",\"traceparent\":null}"));
        assertNull(TaskTracing.traceParentOf(null));
        assertNull(TaskTracing.traceParentOf("traceparent, but no JSON"));
    }

    @Test
    void offItMakesNothing() {
        TaskTracing off = new TaskTracing(); // never initialised: as with otel.sdk.disabled=true, no tracer
        assertFalse(off.on());
        assertNull(off.currentTraceParent());
        Span child = off.child(ExportSpans.BATCH.spanName());
        assertSame(Span.getInvalid(), child, "the constant no-op span, nothing allocated");
        assertFalse(child.isRecording());
    }
}
