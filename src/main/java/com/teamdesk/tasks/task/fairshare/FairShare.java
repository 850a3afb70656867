package com.teamdesk.tasks.task.fairshare;

import com.teamdesk.tasks.task.spi.StatementPermits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The one seam between the engine and fair share between urgent and background work (docs/fair-share.md): a
 * {@code POST …/tasks} takes its {@link #request share} for the kind it creates, a claimed execution its
 * {@link #execution share}; neither caller knows the mechanisms behind it. By the kind's priority against R42's
 * threshold ({@link UrgentPriority}):
 * <ul>
 * <li>an urgent kind's request and execution hold an urgent window (R47, {@link UrgentWork}); a request that
 * dispatched its job hands its window over to that job's claim;</li>
 * <li>a background kind's request yields to urgent work before its first read (R47); its execution's body runs on a
 * background thread ({@link BackgroundCpu}, R46) and its statements take permits of the bound
 * ({@link BackgroundStatements}, R48, which yields to urgent work with the permit held).</li>
 * </ul>
 * Teams' turns, caps and rate limits (R40) and the reserved slots (R42) are the queue's and the worker's, before a
 * claim: not here.
 */
@ApplicationScoped
public class FairShare {

    @Inject
    UrgentWork urgent;

    @Inject
    BackgroundCpu cpu;

    @Inject
    BackgroundStatements statements;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.reserved-min-priority", defaultValue = "5")
    int reservedMinPriority;

    /** A body handed to {@link ExecutionShare#run}: the kind's run of one execution. */
    @FunctionalInterface
    public interface Body {
        /** @throws Exception what the kind threw, passed on as thrown */
        void run() throws Exception;
    }

    /**
     * R47 for a {@code POST …/tasks} of a kind of {@code kindPriority} (0-10; -1 for an unknown kind or no body), called
     * before its first read: a background kind's request waits for urgent work first (at most
     * {@code teamdesk.worker.background-yield-ms}); an urgent kind's opens its urgent window. Close it in a finally
     * block (try-with-resources) when the request answers.
     *
     * @return the request's share; never null
     */
    public RequestShare request(int kindPriority) {
        if (urgent.isBackground(kindPriority)) {
            urgent.yieldToUrgent();
        }
        return new RequestShare(urgent.open(kindPriority));
    }

    /**
     * R46-R48 for an execution of a kind of {@code kindPriority} (0-10) that this instance's worker just claimed as
     * queue job {@code jobId}: opens its urgent window when the kind is urgent (R47), then closes the window its
     * creating request handed over to this claim, if any. Close it in a finally block when the execution ended
     * (its outcome reported).
     *
     * @return the execution's share; never null
     */
    public ExecutionShare execution(String jobId, int kindPriority) {
        UrgentWork.Window window = urgent.open(kindPriority); // R47: null unless urgent
        urgent.claimed(jobId); // its own window is open: the creating request's, handed over, may close
        return new ExecutionShare(kindPriority, window);
    }

    /** A request's part of fair share (R47): its urgent window, or nothing. */
    public final class RequestShare implements AutoCloseable {
        /** Null unless the kind is urgent and yielding is on. */
        private final UrgentWork.Window window;

        private RequestShare(UrgentWork.Window window) {
            this.window = window;
        }

        /**
         * The request added queue job {@code jobId}: its window stays open until this instance claims that job or
         * {@code teamdesk.worker.urgent-handover-ms} has passed (R47). Call it before the job is added (the claim may
         * come before the add returns).
         */
        public void dispatched(String jobId) {
            urgent.handOver(window, jobId);
        }

        /** The request answered: closes its window unless {@link #dispatched} handed it over. */
        @Override
        public void close() {
            if (window != null) {
                window.release();
            }
        }
    }

    /** An execution's part of fair share: its urgent window (R47), where its body runs (R46), its permits (R48). */
    public final class ExecutionShare implements AutoCloseable {
        private final int kindPriority;
        /** Null unless the kind is urgent and yielding is on. */
        private final UrgentWork.Window window;

        private ExecutionShare(int kindPriority, UrgentWork.Window window) {
            this.kindPriority = kindPriority;
            this.window = window;
        }

        /**
         * @return the permits the execution's statements take ({@code Execution#beginStatement}): the instance's bound
         *         for a background kind (R48, then R47's yield), none for an urgent one
         */
        public StatementPermits statements() {
            return UrgentPriority.isUrgentPriority(kindPriority, reservedMinPriority) ? StatementPermits.NONE : statements;
        }

        /**
         * Runs the kind's body: on a background thread for a background kind (R46: the caller waits for it whatever
         * happens, an interrupt passed on; see {@link BackgroundCpu#call}), else on the caller's thread.
         *
         * @throws Exception what the body threw, as thrown
         */
        public void run(Body body) throws Exception {
            if (cpu.isBackground(kindPriority)) {
                cpu.call(() -> { // R46: the body at background CPU priority, the rest of the slot as it was
                    body.run();
                    return null;
                });
            } else {
                body.run();
            }
        }

        /** The execution ended: closes its urgent window, if it has one. */
        @Override
        public void close() {
            if (window != null) {
                window.close();
            }
        }
    }
}
