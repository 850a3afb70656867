package com.teamdesk.tasks.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;

/**
 * Issue 30's script-level tests: a queue, its worker-side store, and fetches one job at a time (each for a fresh
 * lock token, as the fetch loop does), remembering every fetched job so that a test can finish it.
 */
abstract class LaneFixture extends QueueFixture {

    protected QueueStore store;
    /** Every job fetched by {@link #fetchId()}, by id (the latest fetch of it). */
    protected final Map<String, FetchedJob> fetched = new HashMap<>();
    private int tokens;

    @BeforeEach
    void laneStore() {
        store = new QueueStore(redis, queue.keys());
    }

    /** @return default options in {@code group} */
    protected static JobOptions in(String group) {
        return JobOptions.defaults().withGroup(group);
    }

    /** @return the id of the job one fetch locks, or null when none is fetchable */
    protected String fetchId() {
        FetchedJob job = store.moveToActive("t" + (++tokens), 60_000).job();
        if (job == null) {
            return null;
        }
        fetched.put(job.id(), job);
        return job.id();
    }

    /**
     * Fetches one job, then completes it asking for {@code slots} next jobs in the same call, as a finishing slot
     * of a worker with that many free slots does.
     *
     * @return the ids of the next jobs, in fetch order
     */
    protected List<String> completeFirstAndFetch(int slots) {
        FetchedJob first = store.moveToActive("t0", 60_000).job();
        List<String> tokens = new ArrayList<>();
        for (int i = 1; i <= slots; i++) {
            tokens.add("n" + i);
        }
        return store.completeMany(List.of(new QueueStore.Completion(first, -1)), tokens, 60_000).next().stream()
                .map(FetchedJob::id).toList();
    }

    /** @return the ids fetched one by one until nothing is fetchable, in fetch order */
    protected List<String> fetchAll() {
        List<String> ids = new ArrayList<>();
        for (String id = fetchId(); id != null; id = fetchId()) {
            ids.add(id);
        }
        return ids;
    }
}
