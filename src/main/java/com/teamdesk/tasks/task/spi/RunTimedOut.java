package com.teamdesk.tasks.task.spi;

import java.time.Instant;

/**
 * R26: an execution reached a lease-checked write after its deadline (claim + the kind's run
 * timeout). The write is not made; the processor counts the attempt as a transient failure (R11)
 * with a {@code lastError} saying the run took too long, so the queue retries it with backoff
 * until {@code MAX_TASK_ATTEMPTS}.
 */
public class RunTimedOut extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param lease the execution's lease (its deadline passed); {@code what} names the refused write */
    public RunTimedOut(Lease lease, String what) {
        super("run time over at " + what + " (deadline " + lease.deadline() + "): task " + lease.taskId() + " run "
                + lease.run() + " execution " + lease.executionId());
    }

    /**
     * R26: a lease-checked write after the execution's deadline is refused before it is made.
     *
     * @param what the write, named in the exception
     * @throws RunTimedOut when {@code now} is past {@code lease.deadline()} (none: no limit)
     */
    public static void check(Lease lease, String what, Instant now) {
        if (lease.deadline() != null && now.isAfter(lease.deadline())) {
            throw new RunTimedOut(lease, what);
        }
    }
}
