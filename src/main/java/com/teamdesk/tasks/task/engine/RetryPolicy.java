package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.queue.Backoff;
import com.teamdesk.tasks.queue.JobOptions;
import com.teamdesk.tasks.queue.Retention;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Retry policy of a run as one object (R4, R5, R11): how many executions a run gets (first
 * included), the exponential backoff base, and the queue retention of finished jobs. The same
 * numbers go to the queue (as job options) and to the processor's error classification, so the
 * two never disagree.
 */
@ApplicationScoped
public class RetryPolicy {

    @Inject
    @ConfigProperty(name = "teamdesk.task.max-attempts", defaultValue = "3")
    int maxAttempts;

    @Inject
    @ConfigProperty(name = "teamdesk.task.backoff-ms", defaultValue = "2000")
    long backoffMs;

    @Inject
    @ConfigProperty(name = "teamdesk.queue.completed.max-age-s", defaultValue = "86400")
    long completedMaxAgeS;

    @Inject
    @ConfigProperty(name = "teamdesk.queue.completed.max-count", defaultValue = "1000")
    int completedMaxCount;

    @Inject
    @ConfigProperty(name = "teamdesk.queue.failed.max-age-s", defaultValue = "604800")
    long failedMaxAgeS;

    @Inject
    @ConfigProperty(name = "teamdesk.queue.failed.max-count", defaultValue = "1000")
    int failedMaxCount;

    /** @return MAX_TASK_ATTEMPTS (default 3, first execution included; R4) */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * R11: is a non-rejection error of this execution final?
     *
     * @param attemptsMade the queue's attemptsMade before this execution (0-based)
     * @return true when {@code attemptsMade + 1 >= MAX_TASK_ATTEMPTS}
     */
    public boolean isFinal(int attemptsMade) {
        return attemptsMade + 1 >= maxAttempts;
    }

    /** @return the queue options of a run's job: attempts, exponential backoff (ms), retention (s) (R4, R5) */
    public JobOptions jobOptions() {
        return JobOptions.defaults()
                .withAttempts(maxAttempts)
                .withBackoff(Backoff.exponential(backoffMs))
                .withRemoveOnComplete(new Retention(completedMaxAgeS, completedMaxCount))
                .withRemoveOnFail(new Retention(failedMaxAgeS, failedMaxCount));
    }
}
