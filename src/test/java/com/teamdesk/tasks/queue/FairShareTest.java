package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Issue 30 at the script level: waiting jobs are served round robin across groups, by priority then arrival
 * within a group with bounded overtaking (aging), and every transition that puts a job back in wait or takes
 * it out keeps it in its group's lane.
 */
class FairShareTest extends LaneFixture {

    @Test
    void aFloodingGroupAndAGroupOfOneTakeTurns() {
        for (int i = 1; i <= 5; i++) {
            queue.add("a" + i, "x", in("team-a"));
        }
        queue.add("b1", "x", in("team-b"));
        queue.add("c1", "x", in("team-c"));
        queue.add("b2", "x", in("team-b"));
        assertEquals(List.of("a1", "b1", "c1", "a2", "b2", "a3", "a4", "a5"), fetchAll());
        assertEquals(0L, redis.llen(queue.keys().lanes()), "no lane left in the rotation once all are taken");
    }

    @Test
    void ungroupedJobsAreALaneOfTheirOwnInTheRotation() {
        queue.add("u1", "x", JobOptions.defaults());
        queue.add("u2", "x", JobOptions.defaults());
        queue.add("a1", "x", in("team-a"));
        queue.add("a2", "x", in("team-a"));
        assertEquals(List.of("u1", "a1", "u2", "a2"), fetchAll());
    }

    @Test
    void aBatchedFetchTakesOneJobPerGroupInTurn() {
        for (int i = 1; i <= 4; i++) {
            queue.add("a" + i, "x", in("team-a"));
        }
        queue.add("b1", "x", in("team-b"));
        queue.add("b2", "x", in("team-b"));
        FetchedJob first = store.moveToActive("t0", 60_000).job();
        assertEquals("a1", first.id());
        QueueStore.Completions done = store.completeMany(List.of(new QueueStore.Completion(first, -1)),
                List.of("n1", "n2", "n3", "n4"), 60_000);
        assertEquals(List.of("b1", "a2", "b2", "a3"), done.next().stream().map(FetchedJob::id).toList());
        assertEquals("a4", fetchId());
    }

    @Test
    void higherPriorityFirstWithinAGroupFifoWithinAPriority() {
        queue.add("low1", "x", in("g"));
        queue.add("low2", "x", in("g"));
        queue.add("high1", "x", in("g").withPriority(5));
        queue.add("high2", "x", in("g").withPriority(5));
        queue.add("top", "x", in("g").withPriority(10));
        assertEquals(List.of("top", "high1", "high2", "low1", "low2"), fetchAll());
    }

    @Test
    void agingBoundsHowOftenALowPriorityJobIsOvertaken() {
        // a job is overtaken by at most 1000 x (difference in priority) jobs of its group that arrive after it
        queue.add("old-low", "x", in("g"));
        List<NewJob> later = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            later.add(new NewJob("high-" + i, "x", in("g").withPriority(1)));
        }
        queue.addBulk(later);
        List<String> order = fetchAll();
        assertEquals(1501, order.size());
        assertEquals(1000, order.indexOf("old-low"), "overtaken by exactly the first 1000 later jobs of priority +1");
        assertEquals("high-999", order.get(999));
        assertEquals("high-1000", order.get(1001));
    }

    @Test
    void aStalledJobReturnsToItsGroupsLane() {
        queue.add("a1", "x", in("team-a"));
        queue.add("b1", "x", in("team-b"));
        assertEquals("a1", fetchId());
        redis.del(queue.keys().lock("a1")); // its worker died
        assertEquals(List.of(new QueueStore.Stalled("a1", false, 0)), store.moveStalledJobs(3, 60_000, "stalled"));
        assertEquals(Long.valueOf(0), redis.zrank(queue.keys().lane("team-a"), "a1"));
        assertEquals(List.of("b1", "a1"), fetchAll());
    }

    @Test
    void aStalledJobGoesBackBeforeTheRestOfItsGroupWhateverTheirPriority() {
        queue.add("a1", "x", in("team-a"));
        queue.add("a2", "x", in("team-a"));
        assertEquals("a1", fetchId());
        queue.add("a3", "x", in("team-a").withPriority(5));
        redis.del(queue.keys().lock("a1")); // its worker died
        assertEquals(List.of(new QueueStore.Stalled("a1", false, 0)), store.moveStalledJobs(3, 60_000, "stalled"));
        assertEquals(List.of("a1", "a3", "a2"), fetchAll(), "the stalled job first, then priority order as before");
    }

    @Test
    void aRetryAtOnceReturnsToTheEndOfItsGroupsLane() {
        queue.add("a1", "x", in("team-a"));
        queue.add("a2", "x", in("team-a"));
        queue.add("b1", "x", in("team-b"));
        FetchedJob a1 = store.moveToActive("t-a1", 60_000).job();
        assertEquals("a1", a1.id());
        assertFalse(store.fail(a1, "boom", false, 0, null, 60_000).lockLost());
        assertEquals(Long.valueOf(1), redis.zrank(queue.keys().lane("team-a"), "a1"), "back in its group's lane, behind a2");
        assertNull(redis.lpos(queue.keys().waiting(), "a1"), "not in the ungrouped lane");
        assertEquals("b1", fetchId());
        assertEquals("a2", fetchId());
        assertEquals("a1", fetchId());
    }

    @Test
    void aDueDelayedJobIsPromotedIntoItsGroupsLane() {
        queue.add("late", "x", in("team-a").withDelayMs(1));
        redis.zadd(queue.keys().delayed(), 0, "late"); // due now
        queue.add("b1", "x", in("team-b"));
        assertEquals(List.of("b1", "late"), fetchAll(), "promoted behind the lane that was waiting");
        assertEquals(JobState.ACTIVE, job("late").state());
    }

    @Test
    void aRemovedJobLeavesItsLaneAndAnEmptiedLaneLeavesTheRotation() {
        queue.add("a1", "x", in("team-a"));
        queue.add("b1", "x", in("team-b"));
        queue.add("b2", "x", in("team-b"));
        assertTrue(queue.remove("a1"));
        assertEquals(List.of("team-b"), redis.lrange(queue.keys().lanes(), 0, -1));
        assertEquals(2L, queue.counts().get(JobState.WAITING));
        assertTrue(queue.remove("b1"));
        assertEquals(1L, queue.counts().get(JobState.WAITING));
        assertEquals(List.of("b2"), fetchAll());
        assertEquals(0L, queue.counts().get(JobState.WAITING));
    }

    @Test
    void countsAddEveryLane() {
        queue.add("u1", "x", JobOptions.defaults());
        queue.add("a1", "x", in("team-a"));
        queue.add("a2", "x", in("team-a"));
        queue.add("b1", "x", in("team-b"));
        Map<JobState, Long> counts = queue.counts();
        assertEquals(4L, counts.get(JobState.WAITING));
    }

    @Test
    void ungroupedJobsOfAnEarlierVersionAreServedAndJoinTheRotation() {
        // an earlier version's jobs: ids in wait, no lane in the rotation
        queue.add("old1", "x", JobOptions.defaults());
        queue.add("old2", "x", JobOptions.defaults());
        redis.del(queue.keys().lanes());
        assertEquals("old1", fetchId(), "served while the rotation is empty");
        queue.add("a1", "x", in("team-a"));
        store.moveStalledJobs(3, 60_000, "stalled"); // the periodic check registers the ungrouped lane again
        assertEquals(List.of("a1", "old2"), fetchAll());
    }

    @Test
    void groupAndPriorityAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> in("a:b"));
        assertThrows(IllegalArgumentException.class, () -> in(""));
        assertThrows(IllegalArgumentException.class, () -> in("x".repeat(101)));
        assertThrows(IllegalArgumentException.class, () -> in("g").withPriority(11));
        assertThrows(IllegalArgumentException.class, () -> in("g").withPriority(-1));
        assertEquals("7b000000-0000-4000-8000-000000050000",
                in("7b000000-0000-4000-8000-000000050000").group());
    }
}
