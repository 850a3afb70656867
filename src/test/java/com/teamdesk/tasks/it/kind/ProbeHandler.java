package com.teamdesk.tasks.it.kind;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskScope;
import io.opentelemetry.api.trace.Span;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;

/**
 * A fifth kind, PROBE, that lives only in the tests (issue 51): it proves that a kind is its own package and handler
 * bean, declaring its own rejection reason ({@link ProbeRejection}), pause point ({@link ProbePausePoint}) and span
 * ({@link ProbeSpans}), with no line of src/main naming it. Request {@code {"kind":"PROBE","outcome":"COMPLETE"|"REJECT"}}
 * (COMPLETE when absent). A run starts its span, reaches its pause point, then either rejects itself for good or
 * completes through its execution in a transaction of its own (docs/how-to-add-a-kind.md).
 */
@ApplicationScoped
public class ProbeHandler implements TaskKindHandler<ProbeHandler.Params> {
    /** This kind's name. */
    public static final TaskKind KIND = TaskKind.of("PROBE");

    /** @param reject whether a run rejects itself */
    public record Params(boolean reject) {
    }

    @Inject
    Transactions transactions;

    @Override
    public TaskKind kind() {
        return KIND;
    }

    @Override
    public List<RequestField> requestFields() {
        return List.of(RequestField.text("outcome").withSchema("""
                {"type": "string", "enum": ["COMPLETE", "REJECT"], "default": "COMPLETE"}"""));
    }

    /** @throws InvalidInputException ({@code probe.invalid}) an outcome other than COMPLETE or REJECT */
    @Override
    public Accepted<Params> accept(NewTaskRequest request, Caller caller) {
        return new Accepted<>(TaskScope.SELF, new Params(parse(request.text("outcome"))));
    }

    @Override
    public String store(Params params) {
        return params.reject() ? "{\"outcome\":\"REJECT\"}" : "{\"outcome\":\"COMPLETE\"}";
    }

    @Override
    public Params load(String stored) {
        return new Params(stored.contains("REJECT"));
    }

    @Override
    public void run(Execution execution, Params params) {
        Span span = execution.span(ProbeSpans.WORK);
        try {
            execution.pause(ProbePausePoint.PROBE_WORKING);
            if (params.reject()) {
                throw new TaskRejected(ProbeRejection.PROBE_REFUSED, "asked to");
            }
            transactions.inNewTransaction(TxSite.WORKER,
                    () -> execution.complete("probe completion", execution.clock().instant()));
        } finally {
            span.end();
        }
        execution.reportCompletedToQueue();
    }

    @Override
    public Duration runTimeout() {
        return Duration.ofMinutes(1);
    }

    private static boolean parse(String outcome) {
        if (outcome == null || outcome.equals("COMPLETE")) {
            return false;
        }
        if (outcome.equals("REJECT")) {
            return true;
        }
        throw new InvalidInputException("probe.invalid", "outcome must be COMPLETE or REJECT.");
    }
}
