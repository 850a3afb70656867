package com.teamdesk.tasks.task.sweep;

/**
 * Something that makes tasks when they fall due, run by the dispatch sweep before it dispatches (issue 31: the
 * schedules' slots, {@code schedule.ScheduleMaterializer}), so the ledger core knows no schedule.
 */
public interface DueTaskSource {

    /**
     * Makes the tasks of up to {@code limit} due sources, in the caller's transaction (one batch); the tasks are
     * WAITING and not dispatched, for the dispatch step that follows.
     *
     * @return the sources handled; fewer than {@code limit} ends the sweep's batches
     */
    int materializeDue(int limit);
}
