package com.teamdesk.tasks.task.digest;

import com.teamdesk.tasks.common.ForbiddenException;
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
 * The DIGEST kind: request {@code {"kind":"DIGEST","scope":"SELF"|"TEAM"}} (SELF when absent; TEAM for
 * staff and owners only, 403 {@code task.scope_forbidden} otherwise). A run delivers one notification to
 * the task's owner listing the open tickets in scope ({@link DigestTransaction}), then reports progress 100
 * to the queue (R12).
 */
@ApplicationScoped
public class DigestHandler implements TaskKindHandler<DigestHandler.Params> {
    /** This kind's name. */
    public static final TaskKind KIND = TaskKind.of("DIGEST");

    /** A digest has no parameters besides its scope, which the task row holds. */
    public record Params() {
    }

    @Inject
    DigestTransaction transaction;

    @Inject
    Transactions transactions;

    @Inject
    @ConfigProperty(name = "teamdesk.task.digest.timeout-ms", defaultValue = "60000")
    long timeoutMs;

    @Override
    public TaskKind kind() {
        return KIND;
    }

    /** Issue 30: a digest is late the moment a customer notices it, so it goes before its team's exports (0). */
    @Override
    public int priority() {
        return 5;
    }

    /** @return a generic form: scope SELF (the default) or TEAM */
    @Override
    public KindInfo info() {
        return new KindInfo(KIND.name(), "Digest of open tickets",
                List.of(new KindInfo.Field("scope", "Tickets", List.of("SELF", "TEAM"))), List.of(KindInfo.CREATE));
    }

    @Override
    public List<RequestField> requestFields() {
        return List.of(RequestField.text("scope").withSchema("""
                {"type": "string", "enum": ["SELF", "TEAM"], "default": "SELF", "description":
                 "SELF: the caller's open tickets; TEAM: the team's (staff and owners)"}"""));
    }

    /** @throws ForbiddenException ({@code task.scope_forbidden}) a TEAM digest asked for by a customer */
    @Override
    public Accepted<Params> accept(NewTaskRequest request, Caller caller) {
        TaskScope scope = NewTaskRequest.enumValue(TaskScope.class, request.text("scope"), "scope", TaskScope.SELF);
        if (scope == TaskScope.TEAM && !caller.role().isStaff()) {
            throw new ForbiddenException("task.scope_forbidden", "Only staff and owners may ask for the team's digest.");
        }
        return new Accepted<>(scope, new Params());
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

    /** @return {@code teamdesk.task.digest.timeout-ms} (default 1 min, R26) */
    @Override
    public Duration runTimeout() {
        return Duration.ofMillis(timeoutMs);
    }
}
