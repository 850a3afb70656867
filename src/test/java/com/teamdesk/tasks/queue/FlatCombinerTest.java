package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FlatCombiner} with gates, no sleeps: a lone request goes out at once; requests made while a
 * batch is in flight go out together in the next one, each getting its own result; a failed batch fails
 * exactly its own requests.
 */
class FlatCombinerTest {
    private static final long WAIT_S = 30;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void aLoneRequestIsSentAtOnceAsABatchOfOne() {
        List<List<Integer>> batches = new CopyOnWriteArrayList<>();
        FlatCombiner<Integer, String> c = new FlatCombiner<>(8, b -> {
            batches.add(List.copyOf(b));
            return b.stream().map(i -> "r" + i).toList();
        });
        assertEquals("r1", c.submit(1));
        assertEquals("r2", c.submit(2));
        assertEquals(List.of(List.of(1), List.of(2)), batches);
    }

    @Test
    void requestsMadeWhileABatchIsInFlightShareTheNextOne() throws Exception {
        CountDownLatch firstInFlight = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<List<Integer>> batches = new CopyOnWriteArrayList<>();
        FlatCombiner<Integer, String> c = new FlatCombiner<>(2, b -> {
            batches.add(List.copyOf(b));
            if (b.contains(0)) {
                firstInFlight.countDown();
                await(releaseFirst);
            }
            return b.stream().map(i -> "r" + i).toList();
        });
        List<CompletableFuture<String>> results = new ArrayList<>();
        try {
            results.add(CompletableFuture.supplyAsync(() -> c.submit(0), threads));
            assertTrue(firstInFlight.await(WAIT_S, TimeUnit.SECONDS), "the first batch never went out");
            for (int i = 1; i <= 3; i++) {
                int item = i;
                results.add(CompletableFuture.supplyAsync(() -> c.submit(item), threads));
            }
            // Bounded wait for a sync point: the three requests are queued behind the batch in flight.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
            while (c.queued() < 3) {
                assertTrue(System.nanoTime() < deadline, "the requests never queued");
                Thread.onSpinWait();
            }
        } finally {
            releaseFirst.countDown();
        }
        for (int i = 0; i <= 3; i++) {
            assertEquals("r" + i, results.get(i).get(WAIT_S, TimeUnit.SECONDS), "each its own result");
        }
        assertEquals(List.of(0), batches.get(0));
        assertEquals(3, batches.size(), "1, then the three queued in batches of at most 2: " + batches);
        Set<Integer> later = new HashSet<>(batches.get(1));
        later.addAll(batches.get(2));
        assertEquals(Set.of(1, 2, 3), later);
        assertEquals(2, batches.get(1).size(), "a full batch");
        assertEquals(3, c.batches());
    }

    @Test
    void aFailedBatchFailsItsOwnRequestsOnly() {
        IllegalStateException boom = new IllegalStateException("boom");
        FlatCombiner<Integer, String> c = new FlatCombiner<>(8, b -> {
            if (b.contains(13)) {
                throw boom;
            }
            return b.stream().map(i -> "r" + i).toList();
        });
        assertSame(boom, assertThrows(IllegalStateException.class, () -> c.submit(13)));
        assertEquals("r1", c.submit(1));
        FlatCombiner<Integer, String> wrongCount = new FlatCombiner<>(8, b -> List.of());
        assertThrows(IllegalStateException.class, () -> wrongCount.submit(1), "one result per request");
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT_S, TimeUnit.SECONDS)) {
                throw new AssertionError("gate never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
