package com.teamdesk.tasks.task.escalation;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.UnprocessableException;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.KindInfo;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.team.sla.SlaClock.Metric;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The SLA_ESCALATION kind (R59): started by a ticket's SLA clocks only ({@link EscalationScheduler}), never by a
 * request ({@code task.system_only}, 422, on every create path: a task, a batch's child or completion, a schedule). A
 * run escalates one threshold of one clock at one version ({@link EscalationTransaction}), then reports progress 100
 * to the queue (R12).
 */
@ApplicationScoped
public class EscalationHandler implements TaskKindHandler<EscalationParams> {
    /** This kind's name. */
    public static final TaskKind KIND = TaskKind.of("SLA_ESCALATION");

    @Inject
    EscalationTransaction transaction;

    @Inject
    EscalationMetrics metrics;

    @Inject
    Transactions transactions;

    @Inject
    @ConfigProperty(name = "teamdesk.task.sla-escalation.timeout-ms", defaultValue = "180000")
    long timeoutMs;

    @Override
    public TaskKind kind() {
        return KIND;
    }

    /** A promise about to break is the most urgent thing a team's queue holds (8). */
    @Override
    public int priority() {
        return 8;
    }

    @Override
    public KindInfo info() {
        return new KindInfo(KIND.name(), "SLA escalation (started by the SLA clocks)", List.of(), List.of());
    }

    @Override
    public List<RequestField> requestFields() {
        return List.of();
    }

    @Override
    public boolean systemOnly() {
        return true;
    }

    /** @throws UnprocessableException ({@code task.system_only}) always: only the SLA clocks start escalations */
    @Override
    public Accepted<EscalationParams> accept(NewTaskRequest request, Caller caller) {
        throw new UnprocessableException("task.system_only",
                KIND.name() + " is started by a ticket's SLA clocks, not by a request.");
    }

    @Override
    public String store(EscalationParams p) {
        return Jsons.PROVIDER.createObjectBuilder().add("ticketId", p.ticketId().toString())
                .add("metric", p.metric().name()).add("threshold", p.threshold().name()).add("version", p.version())
                .build().toString();
    }

    /** @throws TaskRejected ({@code INVALID_ESCALATION}) parameters that are not an escalation's */
    @Override
    public EscalationParams load(String stored) {
        try (var r = Jsons.PROVIDER.createReader(new StringReader(stored))) {
            JsonObject o = r.readObject();
            return new EscalationParams(UUID.fromString(o.getString("ticketId")), Metric.valueOf(o.getString("metric")),
                    Threshold.valueOf(o.getString("threshold")), o.getInt("version"));
        } catch (RuntimeException e) {
            throw new TaskRejected(EscalationRejection.INVALID_ESCALATION, "unreadable parameters");
        }
    }

    @Override
    public void run(Execution execution, EscalationParams params) {
        EscalationTransaction.Outcome outcome = transactions.inNewTransaction(TxSite.WORKER,
                () -> transaction.apply(execution, params));
        metrics.ended(execution.task().teamId(), params.threshold(), outcome.superseded());
        execution.reportCompletedToQueue();
    }

    /** @return {@code teamdesk.task.sla-escalation.timeout-ms} (default 3 min, R26: it may wait 2 min for the team lock) */
    @Override
    public Duration runTimeout() {
        return Duration.ofMillis(timeoutMs);
    }
}
