package com.teamdesk.tasks.task.report;

import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.KindInfo;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.TaskScope;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The BATCH_REPORT kind, a batch's completion only ({@code "completion": {"kind": "BATCH_REPORT"}}): when every
 * child has ended it delivers one notification to the batch's creator with the counts, whom the children's
 * notifications reached (a bulk reminder's "who was reminded") and which children failed or were cancelled, with
 * why ({@link BatchReportTransaction}).
 */
@ApplicationScoped
public class BatchReportHandler implements TaskKindHandler<BatchReportHandler.Params> {
    /** This kind's name. */
    public static final TaskKind KIND = TaskKind.of("BATCH_REPORT");

    /** A report has no parameters: its batch is its row's. */
    public record Params() {
    }

    @Inject
    BatchReportTransaction transaction;

    @Inject
    Transactions transactions;

    @Inject
    @ConfigProperty(name = "teamdesk.task.batch-report.timeout-ms", defaultValue = "60000")
    long timeoutMs;

    @Override
    public TaskKind kind() {
        return KIND;
    }

    /** A report is what its creator waits for, as a digest (5). */
    @Override
    public int priority() {
        return 5;
    }

    @Override
    public KindInfo info() {
        return new KindInfo(KIND.name(), "Report of a batch (its completion only)", List.of(), List.of());
    }

    @Override
    public List<RequestField> requestFields() {
        return List.of();
    }

    @Override
    public boolean completionOnly() {
        return true;
    }

    @Override
    public Accepted<Params> accept(NewTaskRequest request, Caller caller) {
        return new Accepted<>(TaskScope.SELF, new Params());
    }

    @Override
    public String store(Params params) {
        return "{}";
    }

    @Override
    public Params load(String stored) {
        return new Params();
    }

    @Override
    public void run(Execution execution, Params params) {
        transactions.inNewTransaction(TxSite.WORKER, () -> transaction.apply(execution));
        execution.reportCompletedToQueue();
    }

    /** @return {@code teamdesk.task.batch-report.timeout-ms} (default 1 min, R26) */
    @Override
    public Duration runTimeout() {
        return Duration.ofMillis(timeoutMs);
    }
}
