package com.teamdesk.tasks.task.observe;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.queue.Job;
import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.ChildSpans;
import com.teamdesk.tasks.task.spi.Lease;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R45 (issue 32): the task's traces through MicroProfile Telemetry, the OpenTelemetry that Payara provides. Off by
 * default: on only when MicroProfile Config says {@code otel.sdk.disabled=false} (as Payara itself decides), and
 * then every method here works with Payara's injected {@link Tracer}. Off, {@link #on()} is one field read and
 * nothing else is touched: no tracer is looked up, no span, context or string is made, no column is written.
 *
 * <p>The trace of a task: the creating request's span (Payara's JAX-RS span of {@code POST /teams/{t}/tasks}) is
 * stored with the task as a W3C {@code traceparent} and carried in its queue jobs; each execution (claim to end)
 * is a span, its child, whose attributes name the task, kind, run, attempt, execution, worker and outcome (R43's
 * names) and which links to the span of the execution before it (a retry, a new run, a takeover); the reminder's
 * transaction and the export's batches are spans inside it.
 */
@ApplicationScoped
public class TaskTracing implements ChildSpans {
    private static final Logger LOG = Logger.getLogger(TaskTracing.class.getName());

    /** The W3C header name, and the job payload's key. */
    public static final String TRACEPARENT = "traceparent";

    /** The task's id: the first of the execution span's attributes (R45). */
    public static final AttributeKey<String> TASK_ID = AttributeKey.stringKey("teamdesk.task.id");
    /** The task's kind name (EXPORT, REMINDER, …). */
    public static final AttributeKey<String> KIND = AttributeKey.stringKey("teamdesk.task.kind");
    /** The 0-based run. */
    public static final AttributeKey<Long> RUN = AttributeKey.longKey("teamdesk.task.run");
    /** The execution's attempt (R3). */
    public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("teamdesk.task.attempt");
    /** The execution id (the lease, R7). */
    public static final AttributeKey<String> EXECUTION_ID = AttributeKey.stringKey("teamdesk.execution.id");
    /** The claiming queue worker's id (R22). */
    public static final AttributeKey<String> WORKER = AttributeKey.stringKey("teamdesk.worker");
    /** How the execution ended: an {@link ExecutionOutcome} name (R43). */
    public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("teamdesk.execution.outcome");
    /** On a link: what the linked span is ({@code previous_execution}). */
    public static final AttributeKey<String> LINK = AttributeKey.stringKey("teamdesk.link");

    /** The span of one execution, claim to end. */
    public static final String EXECUTION_SPAN = "task.execution";

    private static final Attributes PREVIOUS = Attributes.of(LINK, "previous_execution");

    private static final TextMapGetter<String> ONE_VALUE = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of(TRACEPARENT);
        }

        @Override
        public String get(String carrier, String key) {
            return TRACEPARENT.equals(key) ? carrier : null;
        }
    };

    @Inject
    @ConfigProperty(name = "otel.sdk.disabled", defaultValue = "true")
    boolean sdkDisabled;

    @Inject
    Instance<Tracer> tracers;

    @Inject
    JdbcTaskLedger ledger;

    /** Payara's tracer of this application; null while tracing is off. */
    private Tracer tracer;

    @PostConstruct
    void init() {
        if (!sdkDisabled) {
            tracer = tracers.get();
            LOG.info("tracing on (otel.sdk.disabled=false): task executions are spans (R45)");
        }
    }

    /** Created with the application, on a thread of the deployment, so that Payara resolves its tracer there. */
    void started(@Observes @Initialized(ApplicationScoped.class) Object application) {
        if (tracer != null) {
            tracer.spanBuilder(EXECUTION_SPAN); // resolves the application-scoped tracer now; starts nothing
        }
    }

    /** @return whether tracing is on (the one check made on every path while it is off) */
    public boolean on() {
        return tracer != null;
    }

    /**
     * @return the W3C {@code traceparent} of the current span (in a request: Payara's span of it), or null when
     *         tracing is off or there is no valid current span
     */
    public String currentTraceParent() {
        if (tracer == null) {
            return null;
        }
        SpanContext current = Span.current().getSpanContext();
        return current.isValid() ? traceParent(current) : null;
    }

    /**
     * @return {@code "00-<trace id>-<span id>-<flags>"} (W3C Trace Context, version 00)
     */
    public static String traceParent(SpanContext context) {
        return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-" + context.getTraceFlags().asHex();
    }

    /**
     * @return the span context a W3C {@code traceparent} names (remote), or null when {@code traceParent} is null or
     *         not a valid one
     */
    public static SpanContext spanContext(String traceParent) {
        if (traceParent == null) {
            return null;
        }
        Context extracted = W3CTraceContextPropagator.getInstance().extract(Context.root(), traceParent, ONE_VALUE);
        SpanContext context = Span.fromContext(extracted).getSpanContext();
        return context.isValid() ? context : null;
    }

    /**
     * @return the {@code traceparent} a task job's payload carries ({@code {"taskId":…,"run":…,"traceparent":…}}),
     *         or null when it carries none or is not JSON
     */
    static String traceParentOf(String jobData) {
        if (jobData == null || !jobData.contains(TRACEPARENT)) {
            return null;
        }
        try (var reader = Jsons.PROVIDER.createReader(new StringReader(jobData))) {
            JsonObject o = reader.readObject();
            return o.containsKey(TRACEPARENT) && !o.isNull(TRACEPARENT) ? o.getString(TRACEPARENT) : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * Starts the span of one execution, made current on this thread, started at {@code claimedAt} (the claim's
     * time): its parent is the trace context the job carries, else the one stored with the task, else none (a new
     * trace); it links to the task's latest execution span ({@code trace_span}, read by the claim), which it then
     * replaces under the lease ({@link JdbcTaskLedger#recordSpan}). Call only while {@link #on()}.
     *
     * @return the execution's span, to {@link ExecutionSpan#end} on this thread
     */
    public ExecutionSpan startExecution(Job job, BackgroundTask task, Lease lease, Instant claimedAt) {
        SpanBuilder builder = tracer.spanBuilder(EXECUTION_SPAN).setSpanKind(SpanKind.CONSUMER)
                .setStartTimestamp(claimedAt);
        String parentText = traceParentOf(job.data());
        SpanContext parent = spanContext(parentText != null ? parentText : task.traceParent());
        if (parent != null) {
            builder.setParent(Context.root().with(Span.wrap(parent)));
        } else {
            builder.setNoParent();
        }
        SpanContext previous = spanContext(task.traceSpan());
        if (previous != null) {
            builder.addLink(previous, PREVIOUS);
        }
        builder.setAttribute(TASK_ID, task.id().toString()).setAttribute(KIND, task.kind().name())
                .setAttribute(RUN, (long) lease.run()).setAttribute(ATTEMPT, (long) lease.attempts())
                .setAttribute(EXECUTION_ID, lease.executionId().toString());
        if (job.workerId() != null) {
            builder.setAttribute(WORKER, job.workerId());
        }
        Span span = builder.startSpan();
        Scope scope = span.makeCurrent();
        try {
            ledger.recordSpan(lease, traceParent(span.getSpanContext()));
        } catch (RuntimeException e) {
            // a trace is never a reason for an execution to fail: the next one links to an older span, or none
            LOG.log(Level.FINE, "task.trace span of " + lease.taskId() + " not recorded: " + e);
        }
        return new ExecutionSpan(span, scope);
    }

    /**
     * @return the outcome the history recorded for an execution that lost its lease (TAKEN_OVER, STALLED,
     *         CANCELLED, R43), or {@code LEASE_LOST} when it has none yet or it cannot be read (also the outcome
     *         metric's, R44, tracing on or off)
     */
    public String outcomeAfterLeaseLost(Lease lease) {
        try {
            return ledger.executionOutcome(lease.executionId()).orElse("LEASE_LOST");
        } catch (RuntimeException e) {
            return "LEASE_LOST";
        }
    }

    /**
     * Starts a span inside the current one (the execution's): a kind's, by the name it declares ({@code SpanName}:
     * the reminder's transaction, an export batch).
     *
     * @return the span, to {@link Span#end()}; {@link Span#getInvalid()} (no object made, every call a no-op) while
     *         tracing is off
     */
    @Override
    public Span child(String name) {
        return tracer == null ? Span.getInvalid() : tracer.spanBuilder(name).startSpan();
    }

    /** One execution's span and the scope that makes it current on the execution's thread. */
    public static final class ExecutionSpan {
        private final Span span;
        private final Scope scope;

        ExecutionSpan(Span span, Scope scope) {
            this.span = span;
            this.scope = scope;
        }

        /** Records how the execution ended ({@link ExecutionOutcome} name, or {@code LEASE_LOST}). */
        public void outcome(String outcome) {
            span.setAttribute(OUTCOME, outcome);
            if (ExecutionOutcome.FAILED.name().equals(outcome) || ExecutionOutcome.REJECTED.name().equals(outcome)
                    || ExecutionOutcome.TIMED_OUT.name().equals(outcome)) {
                span.setStatus(StatusCode.ERROR, outcome);
            }
        }

        /** Ends the span and leaves its scope; on the thread that started it. */
        public void end() {
            scope.close();
            span.end();
        }
    }
}
