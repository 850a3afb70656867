package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Issue 30 at the script level: a rate limit lets at most N jobs of its key start per fixed window, across every
 * fetch; a job fetched over it goes back to delayed until the window ends, unlocked and with its attempts
 * unchanged, and starts in a later window. Jobs of other keys, or of none, are not held.
 */
class RateLimitTest extends LaneFixture {

    private static final long WINDOW_MS = 60_000;

    @Test
    void theThirdJobOfAWindowWaitsForTheNextWindowAndUsesNoAttempt() {
        queue.setRateLimit("team-a:EXPORT", 2, WINDOW_MS);
        for (int i = 1; i <= 3; i++) {
            queue.add("e" + i, "x", in("team-a").withRateKey("team-a:EXPORT"));
        }
        queue.add("r1", "x", in("team-a").withRateKey("team-a:REMINDER"));
        queue.add("u1", "x", in("team-a"));
        assertEquals(List.of("e1", "e2", "r1", "u1"), fetchAll(), "e3 is over the limit; other keys are not");
        JobRecord e3 = job("e3");
        assertEquals(JobState.DELAYED, e3.state());
        assertEquals(0, e3.attemptsMade());
        assertEquals(0, e3.attemptsStarted(), "never started: no lock, no attempt");
        assertTrue(!redis.exists(queue.keys().lock("e3")));
        Double due = redis.zscore(queue.keys().delayed(), "e3");
        assertTrue(due != null && due % WINDOW_MS == 0, "due when the window ends: " + due);
        long windowStart = due.longValue() - WINDOW_MS;

        redis.zadd(queue.keys().delayed(), 0, "e3"); // the window ended (as if a minute later)
        redis.del(queue.keys().lanes() + "-rate:team-a:EXPORT:" + windowStart); // and its counter with it
        assertEquals(List.of("e3"), fetchAll(), "it starts in the next window");
        assertEquals(1, job("e3").attemptsStarted());
    }

    @Test
    void aBatchedFetchCountsEveryJobItTakes() {
        queue.setRateLimit("k", 3, WINDOW_MS);
        for (int i = 1; i <= 6; i++) {
            queue.add("j" + i, "x", in("g").withRateKey("k"));
        }
        assertEquals(List.of("j2", "j3"), completeFirstAndFetch(5),
                "3 started in this window in all, the first one included");
        assertNull(fetchId());
        assertEquals(3L, queue.counts().get(JobState.DELAYED));
    }

    @Test
    void aClearedLimitHoldsNothingAndLimitsAreChecked() {
        queue.setRateLimit("k", 1, WINDOW_MS);
        assertEquals(Map.of("k", "1:60000"), queue.rateLimits());
        queue.setRateLimit("k", null, WINDOW_MS);
        assertEquals(Map.of(), queue.rateLimits());
        for (int i = 1; i <= 3; i++) {
            queue.add("j" + i, "x", in("g").withRateKey("k"));
        }
        assertEquals(List.of("j1", "j2", "j3"), fetchAll());
        assertThrows(IllegalArgumentException.class, () -> queue.setRateLimit("k", 0, WINDOW_MS));
        assertThrows(IllegalArgumentException.class, () -> queue.setRateLimit("a b", 1, WINDOW_MS));
        assertThrows(IllegalArgumentException.class, () -> in("g").withRateKey("a b"));
    }

    /**
     * What an operator and a member see: the jobs of a key started in the window and those held until it ends;
     * a held job removed since is not counted. (A window of ~317 years, so that no window's end falls inside
     * the test.)
     */
    @Test
    void theRateStatusCountsTheStartedAndTheHeldJobsOfTheWindow() {
        long window = 10_000_000_000_000L;
        queue.setRateLimit("k", 2, window);
        for (int i = 1; i <= 5; i++) {
            queue.add("j" + i, "x", in("g").withRateKey("k"));
        }
        assertEquals(List.of("j1", "j2"), fetchAll());
        assertEquals(List.of(new RateStatus("k", 2, window, 2, 3, java.time.Instant.ofEpochMilli(window))),
                queue.rateStatus());
        assertTrue(queue.rateStatus().get(0).full());
        assertTrue(queue.remove("j4"));
        assertEquals(2, queue.rateStatus().get(0).held(), "a removed job is no longer held");
        queue.setRateLimit("k", null, window);
        assertEquals(List.of(), queue.rateStatus());
    }

    /** A job's place in its group's lane: the jobs of its group that start before it. */
    @Test
    void theLaneRankIsTheGroupsJobsAheadOfAJob() {
        for (int i = 1; i <= 3; i++) {
            queue.add("a" + i, "x", in("g"));
        }
        queue.add("b1", "x", in("h"));
        assertEquals(java.util.Optional.of(2L), queue.laneRank("g", "a3"));
        assertEquals(java.util.Optional.of(0L), queue.laneRank("h", "b1"), "other groups are not ahead");
        queue.add("urgent", "x", in("g").withPriority(5));
        assertEquals(java.util.Optional.of(0L), queue.laneRank("g", "urgent"), "a higher priority goes first");
        assertEquals(java.util.Optional.of(3L), queue.laneRank("g", "a3"));
        assertEquals(java.util.Optional.empty(), queue.laneRank("g", "b1"), "not in that lane");
        assertThrows(IllegalArgumentException.class, () -> queue.laneRank("a b", "a1"));
    }
}
