package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import java.util.UUID;

/**
 * A run to hand to the queue, with what the queue needs to serve it fairly (issue 30): its team, the group of
 * its queue job, and its kind, whose priority it takes.
 *
 * @param job    the run's queue job id (R1)
 * @param teamId the task's team: the job's group
 * @param kind   the task's kind: the job's priority within its group ({@code TaskKindHandler#priority()})
 * @param traceParent the W3C {@code traceparent} of the request that created the task, carried in the job's payload
 *               while tracing is on (R45); null when none
 */
public record Dispatch(TaskJobId job, UUID teamId, TaskKind kind, String traceParent) {
    /** Reads a row {@code id, run, team_id, kind, trace_parent}. */
    public static final Jdbc.Row<Dispatch> ROW = rs -> new Dispatch(TaskJobId.of(Jdbc.uuid(rs, 1), rs.getInt(2)),
            Jdbc.uuid(rs, 3), TaskKind.of(rs.getString(4)), rs.getString(5));

    /** A run without a trace context. */
    public Dispatch(TaskJobId job, UUID teamId, TaskKind kind) {
        this(job, teamId, kind, null);
    }
}
