package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * R26: the maximum run time of one execution, per kind, as its {@link TaskKindHandler#runTimeout}
 * says (MicroProfile Config, milliseconds: {@code teamdesk.task.export.timeout-ms}, default 10 min;
 * {@code teamdesk.task.reminder.timeout-ms}, default 1 min). Measured on the application clock
 * from the claim.
 */
@ApplicationScoped
public class RunTimeouts {

    @Inject
    Instance<TaskKindHandler<?>> handlers;

    /** The run timeout of a kind no handler declares. */
    public static final Duration UNKNOWN_KIND_TIMEOUT = Duration.ofMinutes(1);

    /** Each kind's timeout, read once from its handler (kinds are fixed once the application started). */
    private final Map<TaskKind, Duration> byKind = new ConcurrentHashMap<>();

    /**
     * @return the run timeout of {@code kind}; 1 minute for a kind no handler declares (its run is rejected at
     *         once, as {@code TaskKinds.unknown} says)
     */
    public Duration of(TaskKind kind) {
        return byKind.computeIfAbsent(kind, k -> {
            for (TaskKindHandler<?> h : handlers) {
                if (h.kind().equals(k)) {
                    return h.runTimeout();
                }
            }
            return UNKNOWN_KIND_TIMEOUT;
        });
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
