package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.queue.JobOptions;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** R4/R11: 3 executions per run, first included; backoff 2 s then 4 s; retention as R5. */
class RetryPolicyTest {

    private static RetryPolicy policy() {
        RetryPolicy p = new RetryPolicy();
        p.maxAttempts = 3;
        p.backoffMs = 2000;
        p.completedMaxAgeS = 86400;
        p.completedMaxCount = 1000;
        p.failedMaxAgeS = 604800;
        p.failedMaxCount = 1000;
        return p;
    }

    @Test
    void aTransientErrorIsFinalOnTheThirdExecution() {
        RetryPolicy p = policy();
        assertFalse(p.isFinal(0));
        assertFalse(p.isFinal(1));
        assertTrue(p.isFinal(2));
    }

    @Test
    void jobOptionsCarryTheSameNumbersToTheQueue() {
        JobOptions o = policy().jobOptions();
        assertEquals(3, o.attempts());
        assertEquals(2000, o.backoff().delayMs(1));
        assertEquals(4000, o.backoff().delayMs(2));
        assertEquals(86400, o.removeOnComplete().maxAgeSeconds());
        assertEquals(1000, o.removeOnComplete().maxCount());
        assertEquals(604800, o.removeOnFail().maxAgeSeconds());
        assertEquals(1000, o.removeOnFail().maxCount());
    }
}
