package com.teamdesk.tasks.task.report;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.BatchOutcome;
import com.teamdesk.tasks.task.spi.BatchOutcomes;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.time.Clock;
import java.time.Instant;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A batch report's side effects and its completion in ONE JTA transaction begun by the caller ({@code MANDATORY}), as
 * the digest's (R14): under the team lock it reads the lease (early exit), reads the batch's outcome, inserts the
 * notification to the batch's creator (unique per task and recipient: a replay adds none), appends a system event
 * {@value #EVENT_KIND}, and completes the task through its execution. A lost lease rolls all of it back.
 */
@ApplicationScoped
public class BatchReportTransaction {
    /** Kind of the system event a report appends. */
    public static final String EVENT_KIND = "task.batch_reported";
    /** Longest {@code lastError} a report quotes (characters). */
    static final int ERROR_CHARS = 120;

    @Inject
    JdbcTeamWrites team;

    @Inject
    BatchOutcomes outcomes;

    @Inject
    Clock clock;

    /** R36: longest wait for the team lock, in ms. */
    @Inject
    @ConfigProperty(name = "teamdesk.task.batch-report.lock-timeout-ms", defaultValue = "10000")
    long lockWaitMs;

    /** R36: longest idle pause inside the transaction, in ms. */
    @Inject
    @ConfigProperty(name = "teamdesk.task.batch-report.idle-timeout-ms", defaultValue = "10000")
    long idleMs;

    /**
     * Delivers the report of the execution's batch under its lease, all or nothing.
     *
     * @return the notification's text
     * @throws TaskRejected ({@code NOT_A_COMPLETION}, {@code BATCH_GONE})
     */
    @Transactional(TxType.MANDATORY)
    public String apply(Execution ex) {
        BackgroundTask task = ex.task();
        if (task.completesBatch() == null) {
            throw new TaskRejected(ReportRejection.NOT_A_COMPLETION, "no batch");
        }
        Instant now = clock.instant();
        team.lockTeam(task.teamId(), lockWaitMs, idleMs);
        ex.readUnderLease();
        BatchOutcome outcome = outcomes.of(task.completesBatch())
                .orElseThrow(() -> new TaskRejected(ReportRejection.BATCH_GONE, "batch " + task.completesBatch()));
        String message = message(outcome);
        boolean added = team.addNotification(task.teamId(), task.ownerId(), task.id(), null, message, now);
        JsonArrayBuilder failed = Jsons.PROVIDER.createArrayBuilder();
        outcome.unsuccessful().forEach(c -> failed.add(c.taskId().toString()));
        team.appendSystemEvent(task.teamId(), EVENT_KIND, null, task.ownerId(), task.id(),
                Jsons.PROVIDER.createObjectBuilder().add("batchId", outcome.batchId().toString())
                        .add("size", outcome.size()).add("completed", outcome.completed())
                        .add("failed", outcome.failed()).add("cancelled", outcome.cancelled())
                        .add("notified", outcome.notifiedCount()).add("unsuccessful", failed)
                        .add("delivered", added).build(), now);
        ex.pause(EnginePausePoint.BEFORE_COMPLETION);
        ex.complete("batch report completion", now);
        return message;
    }

    /**
     * @return e.g. {@code Batch "Overdue": 3 of 4 completed, 1 failed. Reached 2 people: Ann, Bo. Did not complete:
     *         REMINDER 5d1…: Rejected: the ticket is closed.}
     */
    static String message(BatchOutcome o) {
        StringBuilder b = new StringBuilder("Batch");
        if (o.label() != null) {
            b.append(" \"").append(o.label()).append('"');
        }
        b.append(": ").append(o.completed()).append(" of ").append(o.size()).append(" completed");
        if (o.failed() > 0) {
            b.append(", ").append(o.failed()).append(" failed");
        }
        if (o.cancelled() > 0) {
            b.append(", ").append(o.cancelled()).append(" cancelled");
        }
        b.append('.');
        if (o.notifiedCount() > 0) {
            b.append(" Reached ").append(o.notifiedCount()).append(o.notifiedCount() == 1 ? " person: " : " people: ")
                    .append(String.join(", ", o.notified()))
                    .append(o.notifiedCount() > o.notified().size() ? ", and others." : ".");
        }
        if (!o.unsuccessful().isEmpty()) {
            b.append(" Did not complete: ").append(o.unsuccessful().stream()
                    .map(c -> c.kind().name() + " " + c.taskId() + " (" + c.status() + ": " + cut(c.lastError()) + ")")
                    .collect(Collectors.joining("; ")));
            int more = o.failed() + o.cancelled() - o.unsuccessful().size();
            b.append(more > 0 ? "; and " + more + " more." : ".");
        }
        return b.toString();
    }

    private static String cut(String error) {
        if (error == null) {
            return "no reason recorded";
        }
        String line = error.replaceAll("\\s+", " ").strip();
        return line.length() <= ERROR_CHARS ? line : line.substring(0, ERROR_CHARS) + "\u2026";
    }
}
