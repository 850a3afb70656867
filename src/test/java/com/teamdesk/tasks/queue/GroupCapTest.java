package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Issue 30 at the script level: a group's cap of active jobs holds across every fetch (batched or not), its
 * waiting jobs do not count as attempts while they wait, and the count follows the active set, so a job that
 * ends in any way (completed, failed, deferred, stalled) frees its place and nothing leaks.
 */
class GroupCapTest extends LaneFixture {

    private void addJobs(String group, String prefix, int n) {
        for (int i = 1; i <= n; i++) {
            queue.add(prefix + i, "x", in(group));
        }
    }

    @Test
    void aCappedGroupNeverHasMoreActiveThanItsCapWhileOthersTakeTheRest() {
        assertEquals(0, queue.setGroupCap("team-a", 2));
        addJobs("team-a", "a", 5);
        addJobs("team-b", "b", 3);
        assertEquals(List.of("a1", "b1", "a2", "b2", "b3"), fetchAll(), "A stops at 2; B takes the rest");
        assertEquals(new GroupInfo("team-a", 3, 2, 2, true), queue.groups().get(0));
        assertEquals(3L, queue.counts().get(JobState.WAITING), "a parked group's jobs still wait");
        assertEquals(0, job("a3").attemptsMade(), "waiting at the cap is no attempt");

        assertFalse(store.complete(fetched.get("a1"), null, 60_000).lockLost());
        assertEquals(List.of("a3"), fetchAll(), "one ended, one more starts");
        assertFalse(store.fail(fetched.get("a2"), "boom", true, 0, null, 60_000).lockLost());
        assertEquals(List.of("a4"), fetchAll());
    }

    @Test
    void aBatchedFetchOfManySlotsStillStopsAtTheCap() {
        queue.setGroupCap("team-a", 2);
        addJobs("team-a", "a", 6);
        assertEquals(List.of("a2", "a3"), completeFirstAndFetch(5),
                "a1 completed: two places, two jobs, however many slots asked");
        assertNull(fetchId());
    }

    @Test
    void aStalledJobOfACappedGroupFreesItsPlaceAtTheStalledCheck() {
        queue.setGroupCap("team-a", 1);
        addJobs("team-a", "a", 2);
        assertEquals(List.of("a1"), fetchAll());
        redis.del(queue.keys().lock("a1")); // its worker was killed
        assertEquals(List.of(new QueueStore.Stalled("a1", false, 0)), store.moveStalledJobs(3, 60_000, "stalled"));
        assertEquals(new GroupInfo("team-a", 2, 1, 0, false), queue.groups().get(0), "nothing left counted");
        assertEquals(List.of("a1"), fetchAll(), "the place is free again, and a1 is taken over first: it was at the"
                + " head of its lane (else the ledger would count a1's stale RUNNING row and a2 until recovery)");
    }

    @Test
    void aDeferredJobFreesItsPlace() {
        queue.setGroupCap("team-a", 1);
        addJobs("team-a", "a", 2);
        assertEquals(List.of("a1"), fetchAll());
        assertTrue(store.defer(fetched.get("a1"), 60_000, "database unreachable"));
        assertEquals(List.of("a2"), fetchAll());
    }

    @Test
    void aCapSetWhileJobsRunCountsThemAndClearingItLetsTheRestGo() {
        addJobs("team-a", "a", 5);
        assertEquals(List.of("a1", "a2", "a3"), List.of(fetchId(), fetchId(), fetchId()));
        assertEquals(3, queue.setGroupCap("team-a", 2), "three active when the cap came");
        assertNull(fetchId(), "over its cap: nothing more starts");
        store.complete(fetched.get("a1"), null, 60_000);
        assertNull(fetchId(), "still at 2");
        store.complete(fetched.get("a2"), null, 60_000);
        assertEquals("a4", fetchId());
        assertEquals(2, queue.setGroupCap("team-a", null));
        assertEquals("a5", fetchId(), "no cap: the parked lane is back");
        assertEquals(List.of(), queue.groups());
    }

    @Test
    void removingTheLastWaitingJobOfAParkedGroupForgetsIt() {
        queue.setGroupCap("team-a", 1);
        addJobs("team-a", "a", 2);
        assertEquals(List.of("a1"), fetchAll());
        assertTrue(queue.remove("a2"));
        assertEquals(new GroupInfo("team-a", 0, 1, 1, false), queue.groups().get(0));
        assertEquals(0L, queue.counts().get(JobState.WAITING));
    }

    @Test
    void capsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> queue.setGroupCap("team-a", 0));
        assertThrows(IllegalArgumentException.class, () -> queue.setGroupCap("a:b", 1));
    }
}
