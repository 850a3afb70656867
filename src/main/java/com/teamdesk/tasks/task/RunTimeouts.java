package com.teamdesk.tasks.task;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;

/**
 * R26: the maximum run time of one execution, per kind, as its {@link TaskKindHandler#runTimeout}
 * says (MicroProfile Config, milliseconds: {@code teamdesk.task.export.timeout-ms}, default 10 min;
 * {@code teamdesk.task.reminder.timeout-ms}, default 1 min). Measured on the application clock
 * from the claim.
 */
@ApplicationScoped
public class RunTimeouts {

    @Inject
    TaskKinds kinds;

    /** @return the run timeout of {@code kind} */
    public Duration of(TaskKind kind) {
        return kinds.handler(kind).runTimeout();
    }

    /** @return a human phrase of the limit for {@code lastError}, e.g. "10 minutes" */
    public static String describe(Duration limit) {
        long s = limit.toSeconds();
        if (s == 0) {
            return limit.toMillis() + " ms";
        }
        if (s >= 60 && s % 60 == 0) {
            long m = s / 60;
            return m == 1 ? "1 minute" : m + " minutes";
        }
        return s == 1 ? "1 second" : s + " seconds";
    }
}
