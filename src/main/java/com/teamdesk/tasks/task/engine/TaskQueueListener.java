package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.queue.WorkerListener;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import com.teamdesk.tasks.task.spi.TaskJobId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * R21: the worker's {@code failed} and {@code stalled} listeners only log. They never write the
 * ledger: they do not know which execution failed, and {@code taskId + run} is not a lease. The
 * processor writes ordinary rejections and final failures itself; the sweeps heal the rest.
 */
@ApplicationScoped
public class TaskQueueListener implements WorkerListener {

    @Inject
    TaskMetrics metrics;

    private static final Logger LOG = Logger.getLogger(TaskQueueListener.class.getName());

    @Override
    public void failed(String jobId, int attemptsMade, boolean exhausted, String reason) {
        TaskJobId job = parse(jobId);
        LOG.log(exhausted ? Level.WARNING : Level.INFO,
                "task.failed taskId={0} run={1} attemptsMade={2} exhausted={3} reason={4}",
                new Object[] {job == null ? jobId : job.taskId(), job == null ? "?" : job.run(), attemptsMade,
                    exhausted, reason});
    }

    @Override
    public void stalled(String jobId) {
        metrics.stalled();
        TaskJobId job = parse(jobId);
        LOG.log(Level.WARNING, "task.stalled taskId={0} run={1}",
                new Object[] {job == null ? jobId : job.taskId(), job == null ? "?" : job.run()});
    }

    private static TaskJobId parse(String jobId) {
        try {
            return TaskJobId.parse(jobId);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
