package com.teamdesk.tasks.task.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.common.TooManyRequestsException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The caps of {@link StreamSlots}: per user, per server, what a refusal says, and counts that never go below 0. */
class StreamSlotsTest {
    private final UUID ada = UUID.randomUUID();
    private final UUID ben = UUID.randomUUID();

    @Test
    void aUserOverTheCapIsRefusedWithHowManyAndWhenToRetryAndNothingIsTaken() {
        StreamSlots slots = new StreamSlots(100, 2, 2, 5);
        slots.acquire(ada);
        slots.acquire(ada);
        TooManyRequestsException e = assertThrows(TooManyRequestsException.class, () -> slots.acquire(ada));
        assertEquals(429, e.status());
        assertEquals("events.too_many_streams", e.code());
        assertEquals(2, e.retryAfterSeconds());
        assertTrue(e.detail().startsWith("You have 2 event streams open"), e.detail());
        assertEquals(2, slots.open());
        assertEquals(Map.of(ada, 2), slots.byUser());
        slots.acquire(ben); // another user is not held up
        slots.release(ada);
        slots.acquire(ada); // the slot given back is usable at once
        assertEquals(3, slots.open());
    }

    @Test
    void theServerCapHoldsForEveryoneAndSaysSo() {
        StreamSlots slots = new StreamSlots(2, 10, 2, 5);
        slots.acquire(ada);
        slots.acquire(ben);
        TooManyRequestsException e = assertThrows(TooManyRequestsException.class, () -> slots.acquire(UUID.randomUUID()));
        assertEquals(5, e.retryAfterSeconds());
        assertTrue(e.detail().contains("This server has 2 event streams open"), e.detail());
        assertEquals(2, slots.open());
    }

    @Test
    void releasesNeverCountBelowZeroAndUsersWithoutStreamsAreNotListed() {
        StreamSlots slots = new StreamSlots(10, 10, 2, 5);
        slots.acquire(ada);
        slots.release(ada);
        slots.release(ada);
        slots.release(ben);
        assertEquals(0, slots.open());
        assertEquals(Map.of(), slots.byUser());
        slots.acquire(ben);
        slots.acquire(ada);
        slots.acquire(ada);
        assertEquals(java.util.List.of(ada, ben), java.util.List.copyOf(slots.byUser().keySet()), "most first");
    }
}
