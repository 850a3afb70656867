package com.teamdesk.tasks.task.spi;

import java.util.UUID;

/**
 * The queue job id of one run of a task: {@code taskJobId(T, run) = "<T>-<run>"} (R1).
 * Automatic retries inside a run reuse it; a manual retry makes {@code "<T>-<run+1>"}.
 *
 * @param taskId the task id T
 * @param run    0-based run number
 */
public record TaskJobId(UUID taskId, int run) {
    /** Reads a row whose first two columns are a task's id and run ({@code RETURNING id, run}). */
    public static final com.teamdesk.tasks.platform.Jdbc.Row<TaskJobId> ROW =
            rs -> of(com.teamdesk.tasks.platform.Jdbc.uuid(rs, 1), rs.getInt(2));

    /** @return the job id of run {@code run} of task {@code taskId} (R1) */
    public static TaskJobId of(UUID taskId, int run) {
        if (run < 0) {
            throw new IllegalArgumentException("run must be >= 0: " + run);
        }
        return new TaskJobId(taskId, run);
    }

    /**
     * Parses {@code "<uuid>-<run>"}.
     *
     * @throws IllegalArgumentException when the text is not a task job id
     */
    public static TaskJobId parse(String jobId) {
        int dash = jobId == null ? -1 : jobId.lastIndexOf('-');
        if (dash != 36) {
            throw new IllegalArgumentException("not a task job id: " + jobId);
        }
        try {
            return of(UUID.fromString(jobId.substring(0, dash)), Integer.parseInt(jobId.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a task job id: " + jobId, e);
        }
    }

    @Override
    public String toString() {
        return taskId + "-" + run;
    }
}
