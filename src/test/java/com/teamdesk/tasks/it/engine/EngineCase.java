package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.Sweeps;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.task.engine.TaskProcessor;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.service.TaskService;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import static com.teamdesk.tasks.it.engine.GatedPausePoints.ANY_TASK;

/**
 * The one way an in-server engine test (it/engine, it/worker) is deployed, injected and cleaned up: the test WAR
 * with the engine's test beans ({@link EngineFixtures}, {@link GatedPausePoints}, {@link RecordingJob}), the beans
 * every such test uses, and after each test the release of every gate it armed. A class extends this, gives its
 * {@code @Deployment} as {@code return deployment(Map.of(...), ThisIT.class)} and is run by Arquillian
 * ({@code @ExtendWith(ArquillianExtension.class)}); its tests run inside the server, on the deployed beans.
 *
 * <p>A test's tasks: a one-task test sets {@link #task} (then {@link #row()}, {@link #awaitStatus(TaskStatus)}
 * read it); a test of several tasks passes each to {@link #track(UUID)}. After each test the gates, faults and
 * probes of those tasks and of {@link GatedPausePoints#ANY_TASK} are reset (which releases any execution still
 * paused); a class whose worker runs its tracked tasks to the end overrides {@link #tracksRunToCompletion()} so
 * that the test also waits, bounded, for each to be COMPLETED (no task is left running into the next test).
 *
 * <p>Waits are bounded polls for a sync point ({@link #await(BooleanSupplier, String)}): they detect one that never
 * comes, they order nothing; ordering comes from the gates.
 *
 * <p>Its classes run one after another ({@code @Execution(SAME_THREAD)}, inherited): Arquillian holds one deployment
 * per JVM ({@link com.teamdesk.tasks.it.LanesTest}).
 */
@Execution(ExecutionMode.SAME_THREAD)
public abstract class EngineCase {
    /** Bound of a gate's wait, in seconds; a poll waits twice this ({@link #await(BooleanSupplier, String)}). */
    protected static final long WAIT_S = GatedPausePoints.MAX_WAIT_S;

    /** Per-test data and executions on the production worker threads. */
    @Inject
    protected EngineFixtures fx;
    /** The deployment's pause points (a CDI alternative of the production no-op). */
    @Inject
    protected GatedPausePoints gates;
    /** The member API's service: creates tasks as production does. */
    @Inject
    protected TaskService tasks;
    /** The ledger, for reading rows. */
    @Inject
    protected JdbcTaskLedger ledger;
    /** The production processor, for executions the test hands in ({@link #execute(RecordingJob)}). */
    @Inject
    protected TaskProcessor processor;
    /** The dispatch and recovery sweeps, restricted to one task. */
    @Inject
    protected Sweeps sweeps;

    /** The task of a one-task test, or null; its gates are reset after the test. */
    protected UUID task;

    private final List<UUID> tracked = new ArrayList<>();

    /**
     * The test WAR of an engine test: the application with the engine's test beans, this class and
     * {@code classes}; timers off (so that only the worker and the test move rows) unless {@code config} says
     * otherwise.
     *
     * @param config  MicroProfile Config overrides of this deployment
     * @param classes the test class and the test beans it adds
     * @return the deployment
     */
    public static WebArchive deployment(Map<String, String> config, Class<?>... classes) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("teamdesk.timers.enabled", "false");
        all.putAll(config);
        List<Class<?>> extra = new ArrayList<>(List.of(EngineCase.class, EngineFixtures.class, GatedPausePoints.class,
                RecordingJob.class));
        extra.addAll(List.of(classes));
        return TestDeployments.app(all, extra.toArray(Class<?>[]::new));
    }

    /**
     * {@link #deployment(Map, Class[])} with the deployed worker off as well: executions are the production
     * processor with jobs handed in by the test ({@link #execute(RecordingJob)}).
     */
    public static WebArchive deploymentWithoutWorker(Map<String, String> config, Class<?>... classes) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("teamdesk.worker.enabled", "false");
        all.putAll(config);
        return deployment(all, classes);
    }

    /** Whether the tracked tasks must be COMPLETED after their gates are released (default: no). */
    protected boolean tracksRunToCompletion() {
        return false;
    }

    /**
     * Registers a task of this test: its gates are reset after the test.
     *
     * @return {@code id}
     */
    protected final UUID track(UUID id) {
        tracked.add(id);
        return id;
    }

    /** @return the tasks passed to {@link #track(UUID)} in this test, in that order */
    protected final List<UUID> tracked() {
        return Collections.unmodifiableList(tracked);
    }

    /**
     * Resets the gates, faults and probes of this test's tasks and of {@link GatedPausePoints#ANY_TASK}, which
     * releases any execution paused at one (idempotent: a class that must release them before its own clean-up
     * calls it first; it runs after each test anyway).
     */
    protected final void resetGates() {
        gates.reset(ANY_TASK);
        if (task != null) {
            gates.reset(task);
        }
        tracked.forEach(gates::reset);
    }

    @AfterEach
    final void releaseThisTestsTasks() throws InterruptedException {
        resetGates();
        if (tracksRunToCompletion()) {
            for (UUID t : tracked) {
                await(() -> row(t).status() == TaskStatus.COMPLETED, "task " + t + " never COMPLETED");
            }
        }
    }

    /** @return the ledger row of {@link #task} */
    protected BackgroundTask row() {
        return row(task);
    }

    /** @return the ledger row of {@code id} */
    protected BackgroundTask row(UUID id) {
        return ledger.find(id).orElseThrow();
    }

    /** @return the notifications {@link #task} wrote */
    protected long notifications() {
        return fx.notifications(task);
    }

    /** @return the system events {@link #task} wrote */
    protected long events() {
        return fx.events(task);
    }

    /** Waits (bounded) until {@link #task}'s row has {@code status}. */
    protected void awaitStatus(TaskStatus status) throws InterruptedException {
        awaitStatus(task, status);
    }

    /** Waits (bounded) until {@code id}'s row has {@code status}. */
    protected void awaitStatus(UUID id, TaskStatus status) throws InterruptedException {
        await(() -> row(id).status() == status, "task " + id + " never became " + status + " (is " + row(id) + ")");
    }

    /** Waits (bounded) until the queue's record of {@link #task}'s run 0 is in {@code state}. */
    protected void awaitQueueState(Queue queue, JobState state) throws InterruptedException {
        String jobId = TaskJobId.of(task, 0).toString();
        await(() -> queue.getJob(jobId).map(j -> j.state() == state).orElse(false), "job " + jobId + " never " + state);
    }

    /**
     * Bounded poll for a sync point, {@code 2 * WAIT_S} seconds (detects one that never comes; orders nothing).
     *
     * @throws AssertionError with {@code message} when it did not come
     */
    protected static void await(BooleanSupplier condition, String message) throws InterruptedException {
        Poll.until(condition, Duration.ofSeconds(WAIT_S * 2), message);
    }

    /** Runs {@code job} through the production processor on a worker thread (for a class whose worker is off). */
    protected Future<Void> execute(RecordingJob job) {
        return fx.start(() -> {
            processor.process(job);
            return null;
        });
    }

    /** Waits (bounded, {@code WAIT_S}) for an execution to end; rethrows its failure. */
    protected static void join(Future<?> f) throws Exception {
        f.get(WAIT_S, TimeUnit.SECONDS);
    }

    /** Creates (and tracks) a team export scheduled an hour ahead, so that creating it dispatches nothing. */
    protected UUID scheduledExport(EngineFixtures.TestTeam team) {
        return scheduledTask(team, "EXPORT");
    }

    /** Creates (and tracks) a TEAM-scope task of {@code kind} scheduled an hour ahead (dispatches nothing). */
    protected UUID scheduledTask(EngineFixtures.TestTeam team, String kind) {
        String runAt = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1).toString();
        return track(tasks.create(team.staff(), team.id(), new NewTaskRequest(Json.createObjectBuilder()
                .add("kind", kind).add("scope", "TEAM").add("runAt", runAt).build())).id());
    }

    /** Makes the task due and hands it to the queue, as the dispatch sweep does for one row. */
    protected void dispatch(UUID id) {
        fx.exec("UPDATE background_task SET run_at = now() - interval '1 second' WHERE id = ?", id);
        sweeps.dispatchNow(id);
    }
}
