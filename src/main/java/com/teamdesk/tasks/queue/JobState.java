package com.teamdesk.tasks.queue;

/** Where a job record currently is. */
public enum JobState {
    /** In the wait list, ready to be fetched by a worker. */
    WAITING,
    /** Not before a due time: an initial delay or the backoff before a retry (R4). */
    DELAYED,
    /** Fetched by a worker that holds its lock (R6). */
    ACTIVE,
    /** Finished successfully; retained per {@link JobOptions#removeOnComplete()} (R5). */
    COMPLETED,
    /** Failed for good (attempts used up, unrecoverable, or stalled too often); retained per {@link JobOptions#removeOnFail()} (R5). */
    FAILED
}
