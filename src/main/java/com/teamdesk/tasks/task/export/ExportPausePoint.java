package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.task.spi.PausePoint;

/** The export's {@link PausePoint}s (R10, R13, R48), reached through its execution. */
public enum ExportPausePoint implements PausePoint {
    /** Export: a batch of tickets was read, before its progress write (R10). */
    EXPORT_AFTER_BATCH_READ,
    /** Export: after the final permission check, before the lease-checked result write (R13). */
    EXPORT_BEFORE_RESULT_WRITE,
    /**
     * Export: holding its permit of the background statements' bound (R48), right before the lease-checked result
     * write; a test held here keeps that permit.
     */
    EXPORT_RESULT_WRITE_PERMIT_HELD
}
