package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.queue.Job;
import com.teamdesk.tasks.task.spi.TaskJobId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntPredicate;

/**
 * A queue {@link Job} handed straight to the production processor, recording every progress report
 * the execution makes to the queue. Lets a test play the queue's part deterministically (which
 * attempt, which reports fail) when the real worker's timing is not what is under test.
 */
public final class RecordingJob implements Job {
    private final TaskJobId jobId;
    private final int attemptsMade;
    private final List<Integer> reported = new CopyOnWriteArrayList<>();
    private volatile IntPredicate failReport = p -> false;

    /** @param attemptsMade the queue's attemptsMade before this execution (0 on the first) */
    public RecordingJob(TaskJobId jobId, int attemptsMade) {
        this.jobId = jobId;
        this.attemptsMade = attemptsMade;
    }

    /** Makes progress reports whose percent matches {@code which} throw (e.g. {@code p -> p == 100}). */
    public RecordingJob failReportsWhere(IntPredicate which) {
        this.failReport = which;
        return this;
    }

    /** @return the progress values reported to the queue, in order (failed reports included) */
    public List<Integer> reported() {
        return List.copyOf(reported);
    }

    @Override
    public String id() {
        return jobId.toString();
    }

    @Override
    public String data() {
        return "{\"taskId\":\"" + jobId.taskId() + "\",\"run\":" + jobId.run() + "}";
    }

    @Override
    public int attemptsMade() {
        return attemptsMade;
    }

    @Override
    public int attemptsStarted() {
        return attemptsMade + 1;
    }

    @Override
    public void updateProgress(int percent) {
        reported.add(percent);
        if (failReport.test(percent)) {
            throw new IllegalStateException("injected queue report failure at " + percent + "%");
        }
    }
}
