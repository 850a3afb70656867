package com.teamdesk.tasks.queue;

/**
 * One execution of a fetched job as the {@link JobProcessor} sees it: the job under this execution's lock
 * token. (Named apart from the task engine's {@code task.Execution}, the ledger side of a run.)
 */
final class RunningJob implements Job {

    private final FetchedJob fetched;
    private final String workerId;
    private final QueueStore store;
    private final WorkerListeners listeners;
    private volatile int progressOnCompletion = -1;

    RunningJob(FetchedJob fetched, String workerId, QueueStore store, WorkerListeners listeners) {
        this.fetched = fetched;
        this.workerId = workerId;
        this.store = store;
        this.listeners = listeners;
    }

    /** @return what the fetch returned, which the outcome script is given back */
    FetchedJob fetched() {
        return fetched;
    }

    @Override
    public String id() {
        return fetched.id();
    }

    @Override
    public String data() {
        return fetched.data();
    }

    @Override
    public int attemptsMade() {
        return fetched.attemptsMade();
    }

    @Override
    public int attemptsStarted() {
        return fetched.attemptsStarted();
    }

    @Override
    public String workerId() {
        return workerId;
    }

    String token() {
        return fetched.token();
    }

    @Override
    public void updateProgress(int percent) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("percent must be 0-100: " + percent);
        }
        if (!store.updateProgress(id(), token(), percent)) {
            throw new LockLostException("lock of job " + id() + " is no longer held by this execution; "
                    + "progress " + percent + " was not recorded");
        }
        listeners.emit(l -> l.progress(id(), percent));
    }

    @Override
    public void updateProgressOnCompletion(int percent) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("percent must be 0-100: " + percent);
        }
        progressOnCompletion = percent;
    }

    /** @return the progress the completion records, or -1 for none */
    int progressOnCompletion() {
        return progressOnCompletion;
    }

    @Override
    public String toString() {
        return "Job[" + id() + ", attemptsMade=" + attemptsMade() + "]";
    }
}
