package com.teamdesk.tasks.queue;

/** The code a {@link Worker} runs for each execution of a job. */
@FunctionalInterface
public interface JobProcessor {

    /**
     * Processes one execution. Returning normally completes the job.
     *
     * @param job the execution
     * @throws UnrecoverableJobException to fail the job at once, without retry (exhausted)
     * @throws Exception                 any other error fails this execution; the job is retried after its
     *                                   backoff while attempts remain (R4), otherwise it fails for good.
     *                                   The exception's message becomes the job's failed reason.
     */
    void process(Job job) throws Exception;
}
