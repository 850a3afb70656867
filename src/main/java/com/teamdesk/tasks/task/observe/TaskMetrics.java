package com.teamdesk.tasks.task.observe;

import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.task.fairshare.BackgroundStatements;
import com.teamdesk.tasks.task.fairshare.UrgentWork;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.eclipse.microprofile.metrics.Timer;

/**
 * Application metrics of the task engine (issue 14), served by MicroProfile Metrics on {@code /metrics}
 * in Prometheus text (scope {@code application}). Every figure is per server instance; sum over
 * instances. Names and meanings are listed in {@code docs/operations.md}.
 */
@ApplicationScoped
public class TaskMetrics {
    private static final Logger LOG = Logger.getLogger(TaskMetrics.class.getName());
    /** How long a read of the queue's counts is reused by the gauges, in ms. */
    private static final long QUEUE_COUNTS_TTL_MS = 2_000;
    /** The outcomes of {@code teamdesk_task_executions_total} registered at startup (zeros rather than gaps). */
    private static final java.util.List<String> EXECUTION_OUTCOMES = java.util.List.of("completed", "failed",
            "rejected", "timed_out", "cancelled", "stalled", "taken_over", "deferred", "lease_lost");

    @Inject
    MetricRegistry registry;

    @Inject
    Instance<TaskKindHandler<?>> handlers;

    @Inject
    RedisResources redis;

    @Inject
    UrgentWork urgent;

    @Inject
    BackgroundStatements statements;

    private final AtomicInteger openStreams = new AtomicInteger();
    private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();
    private volatile Map<JobState, Long> queueCounts = Map.of();
    private volatile long queueCountsAt;

    /** Registers the gauges at startup, so they are on {@code /metrics} before the first task. */
    void init(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        registry.gauge(Metadata.builder().withName("teamdesk_event_streams_open")
                .withDescription("Open Server-Sent Event streams on this instance").build(), openStreams, AtomicInteger::get);
        registry.gauge(Metadata.builder().withName("teamdesk_background_yields")
                .withDescription("Statements of background executions that waited for urgent work since start (R47)")
                .build(), urgent, UrgentWork::yields);
        registry.gauge(Metadata.builder().withName("teamdesk_background_yield_seconds")
                .withDescription("Time statements of background executions waited for urgent work since start (R47)")
                .build(), urgent, u -> u.yieldedNanos() / 1e9);
        registry.gauge(Metadata.builder().withName("teamdesk_background_statements")
                .withDescription("Statements of background executions holding a permit of the bound now (R48)")
                .build(), statements, BackgroundStatements::running, new Tag("state", "running"));
        registry.gauge(Metadata.builder().withName("teamdesk_background_statements")
                .withDescription("Statements of background executions holding a permit of the bound now (R48)")
                .build(), statements, BackgroundStatements::waiting, new Tag("state", "waiting"));
        registry.gauge(Metadata.builder().withName("teamdesk_background_statement_waits")
                .withDescription("Statements of background executions that waited for a permit of the bound since start (R48)")
                .build(), statements, BackgroundStatements::waits);
        registry.gauge(Metadata.builder().withName("teamdesk_background_statement_wait_seconds")
                .withDescription("Time statements of background executions waited for a permit of the bound since start (R48)")
                .build(), statements, s -> s.waitedNanos() / 1e9);
        registry.gauge(Metadata.builder().withName("teamdesk_urgent_handovers")
                .withDescription("Urgent POSTs' windows handed over to their job's claim since start, by how they ended (R47)")
                .build(), urgent, UrgentWork::handOversClaimed, new Tag("ended", "claimed"));
        registry.gauge(Metadata.builder().withName("teamdesk_urgent_handovers")
                .withDescription("Urgent POSTs' windows handed over to their job's claim since start, by how they ended (R47)")
                .build(), urgent, UrgentWork::handOversExpired, new Tag("ended", "deadline"));
        for (JobState state : JobState.values()) {
            registry.gauge(Metadata.builder().withName("teamdesk_queue_jobs")
                    .withDescription("Jobs in the Redis queue by state (read at most every 2 s)").build(), this,
                    m -> m.queueCount(state), new Tag("state", state.name().toLowerCase(java.util.Locale.ROOT)));
        }
        // Every series from the start, so dashboards and alerts see zeros rather than gaps.
        java.util.SortedSet<TaskKind> kinds = new java.util.TreeSet<>();
        handlers.forEach(h -> kinds.add(h.kind()));
        for (TaskKind kind : kinds) {
            counter("teamdesk_tasks_created", "Tasks created", "kind", kind.name());
            counter("teamdesk_tasks_completed", "Runs completed", "kind", kind.name());
            counter("teamdesk_tasks_failed", "Runs failed for good", "kind", kind.name());
            counter("teamdesk_tasks_cancelled", "Tasks cancelled", "kind", kind.name());
            for (String outcome : EXECUTION_OUTCOMES) {
                registry.counter(Metadata.builder().withName("teamdesk_task_executions")
                        .withDescription("Executions ended on this instance's worker, by kind and outcome").build(),
                        new Tag("kind", kind.name()), new Tag("outcome", outcome));
            }
        }
        for (String cause : java.util.List.of("database", "redis")) {
            deferred(cause, 0);
        }
        for (String timer : java.util.List.of("dispatch", "recovery", "purge")) {
            sweep(timer, Duration.ZERO, 0);
        }
        for (String why : java.util.List.of("client_gone", "slow_reader", "finished", "server_stop")) {
            counter("teamdesk_event_streams_ended", "Event streams ended, by why", "why", why);
        }
    }

    /** A task was created. */
    public void created(TaskKind kind) {
        counter("teamdesk_tasks_created", "Tasks created", "kind", kind.name()).inc();
    }

    /** A run completed (its final ledger write committed). */
    public void completed(TaskKind kind) {
        counter("teamdesk_tasks_completed", "Runs completed", "kind", kind.name()).inc();
    }

    /** A run failed for good (R11 final failure written by the processor). */
    public void failed(TaskKind kind) {
        counter("teamdesk_tasks_failed", "Runs failed for good", "kind", kind.name()).inc();
    }

    /**
     * A task was cancelled. Hook for the cancellation feature (another branch): call it where a
     * cancellation commits; the counter {@code teamdesk_tasks_cancelled_total{kind}} is documented.
     */
    public void cancelled(TaskKind kind) {
        counter("teamdesk_tasks_cancelled", "Tasks cancelled", "kind", kind.name()).inc();
    }

    /** One execution ended (any outcome): its duration from claim to end. */
    public void runDuration(TaskKind kind, Duration d) {
        timer("teamdesk_task_run_duration", "Duration of one execution, claim to end", "kind", kind.name()).update(d);
    }

    /**
     * Issue 32: one execution of this instance's worker ended, as the worker saw it: its outcome (R43's names;
     * {@code DEFERRED} for an execution an outage deferred (R35), {@code LEASE_LOST} when its lease was gone and
     * the history could not say why) and its duration from claim to end.
     *
     * @param outcome an {@code ExecutionOutcome} name, {@code DEFERRED} or {@code LEASE_LOST}
     */
    public void executionEnded(TaskKind kind, String outcome, Duration d) {
        String o = outcome.toLowerCase(java.util.Locale.ROOT);
        registry.counter(Metadata.builder().withName("teamdesk_task_executions")
                .withDescription("Executions ended on this instance's worker, by kind and outcome").build(),
                new Tag("kind", kind.name()), new Tag("outcome", o)).inc();
        timer("teamdesk_task_execution_duration", "Duration of one execution, claim to end, by outcome", "outcome", o)
                .update(d.isNegative() ? Duration.ZERO : d);
    }

    /** The first claim of a run: time from the run's creation ({@code runAt}) to its claim. */
    public void queueWait(TaskKind kind, Duration d) {
        timer("teamdesk_task_queue_wait", "Time from a run's creation to its first claim", "kind", kind.name())
                .update(d.isNegative() ? Duration.ZERO : d);
    }

    /** An execution found its lease gone (R9). */
    public void leaseLost() {
        registry.counter(Metadata.builder().withName("teamdesk_task_lease_lost")
                .withDescription("Executions that lost their lease (R9)").build()).inc();
    }

    /**
     * An execution met an infrastructure outage and was deferred without using an attempt (issue 28).
     *
     * @param cause {@code database} or {@code redis}
     */
    public void deferred(String cause) {
        deferred(cause, 1);
    }

    private void deferred(String cause, long n) {
        counter("teamdesk_task_deferred", "Executions deferred by an infrastructure outage, no attempt used (issue 28)",
                "cause", cause).inc(n);
    }

    /** The queue's stalled check moved a job back or failed it (R6). */
    public void stalled() {
        registry.counter(Metadata.builder().withName("teamdesk_task_stalled")
                .withDescription("Jobs the queue found stalled (R6)").build()).inc();
    }

    /** Stall recovery moved rows back to WAITING (R19). */
    public void recovered(int rows) {
        if (rows > 0) {
            registry.counter(Metadata.builder().withName("teamdesk_task_recovered")
                    .withDescription("RUNNING rows moved back to WAITING by stall recovery (R19)").build()).inc(rows);
        }
    }

    /**
     * One run decided from the queue's record (R20).
     *
     * @param outcome {@code redispatched_missing}, {@code redispatched_completed}, {@code failed} or {@code queued}
     */
    public void reconciled(String outcome) {
        counter("teamdesk_task_reconciled", "Runs decided from the queue's record (R20)", "outcome", outcome).inc();
    }

    /** One tick of a sweep ran: its duration and the rows it handled. */
    public void sweep(String timer, Duration d, int rows) {
        timer("teamdesk_sweep_duration", "Duration of one sweep tick", "timer", timer).update(d);
        counter("teamdesk_sweep_rows", "Rows handled by sweeps", "timer", timer).inc(rows);
    }

    /** An event stream opened (+1) or closed (-1). */
    public void streams(int delta) {
        openStreams.addAndGet(delta);
    }

    /**
     * An event stream ended (issue 34).
     *
     * @param why {@code client_gone}, {@code slow_reader}, {@code finished} or {@code server_stop}
     */
    public void streamEnded(String why) {
        counter("teamdesk_event_streams_ended", "Event streams ended, by why", "why", why).inc();
    }

    /**
     * The timer of that name and tag, made once. Payara's registry builds a new timer's percentile and bucket
     * configuration in a plain {@code HashMap} it shares between all its timers and histograms, so two threads
     * making timers at once corrupt it (a {@code ConcurrentModificationException} in the context's startup
     * when a worker thread ended an execution while {@link #init} registered the sweep timers: the deployment
     * failed, CI of stop 40). Every timer is therefore made under one lock, and kept, so a hot path takes none.
     */
    private Timer timer(String name, String description, String tag, String value) {
        String key = name + '\u0000' + tag + '\u0000' + value;
        Timer t = timers.get(key);
        if (t != null) {
            return t;
        }
        synchronized (timers) { // one lock for every key: computeIfAbsent alone locks only the key's bin
            return timers.computeIfAbsent(key, k -> registry.timer(Metadata.builder().withName(name)
                    .withDescription(description).build(), new Tag(tag, value)));
        }
    }

    private org.eclipse.microprofile.metrics.Counter counter(String name, String description, String tag, String value) {
        return registry.counter(Metadata.builder().withName(name).withDescription(description)
                .withUnit(MetricUnits.NONE).build(), new Tag(tag, value));
    }

    private long queueCount(JobState state) {
        long now = System.nanoTime();
        if (now - queueCountsAt > QUEUE_COUNTS_TTL_MS * 1_000_000L) {
            try {
                queueCounts = new EnumMap<>(redis.taskQueue().counts());
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "queue counts for metrics", e);
            }
            queueCountsAt = now;
        }
        return queueCounts.getOrDefault(state, 0L);
    }
}
