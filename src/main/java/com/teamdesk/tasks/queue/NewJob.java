package com.teamdesk.tasks.queue;

import java.util.Objects;

/**
 * One job to add with {@link Queue#addBulk(java.util.List)}.
 *
 * @param jobId   the caller-chosen job id (must not contain {@code ':'}; see {@link QueueKeys#requireValidJobId(String)})
 * @param data    opaque payload, typically JSON
 * @param options the job's options
 */
public record NewJob(String jobId, String data, JobOptions options) {

    /**
     * @throws NullPointerException if an argument is null
     */
    public NewJob {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(options, "options");
    }
}
