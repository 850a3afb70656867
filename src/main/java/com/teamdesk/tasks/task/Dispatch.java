package com.teamdesk.tasks.task;

import com.teamdesk.tasks.platform.Jdbc;
import java.util.UUID;

/**
 * A run to hand to the queue, with what the queue needs to serve it fairly (issue 30): its team, the group of
 * its queue job, and its kind, whose priority it takes.
 *
 * @param job    the run's queue job id (R1)
 * @param teamId the task's team: the job's group
 * @param kind   the task's kind: the job's priority within its group ({@link TaskKindHandler#priority()})
 */
public record Dispatch(TaskJobId job, UUID teamId, TaskKind kind) {
    /** Reads a row {@code id, run, team_id, kind}. */
    public static final Jdbc.Row<Dispatch> ROW =
            rs -> new Dispatch(TaskJobId.of(Jdbc.uuid(rs, 1), rs.getInt(2)), Jdbc.uuid(rs, 3), TaskKind.of(rs.getString(4)));
}
