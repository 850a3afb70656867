package com.teamdesk.tasks.task.spi;

/**
 * A lease-checked write matched 0 rows: another execution claimed the run, recovery cleared the
 * lease, or the task already finished (R8). Caught at the top of the processor, where the
 * execution returns normally without failing the task or reporting progress 100 (R9). Thrown out
 * of a reminder's transaction so that the container rolls back its side effects (R14).
 */
public class LeaseLost extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param lease the lease that no longer matches; {@code what} names the write that failed */
    public LeaseLost(Lease lease, String what) {
        super("lease lost at " + what + ": task " + lease.taskId() + " run " + lease.run() + " execution "
                + lease.executionId());
    }
}
