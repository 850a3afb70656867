package com.teamdesk.tasks.task.idempotency;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.task.ledger.RunTimeouts;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** R25 key checks and fingerprints; R26 lastError wording of the limit. */
class IdempotentRequestTest {
    private final UUID caller = UUID.randomUUID();

    @Test
    void keyLengthIsOneTo255() {
        assertNull(IdempotentRequest.of(caller, null, "POST", "p", ""));
        assertEquals(255, IdempotentRequest.of(caller, "k".repeat(255), "POST", "p", "").key().length());
        assertEquals("idempotency.key_invalid", assertThrows(InvalidInputException.class,
                () -> IdempotentRequest.of(caller, "k".repeat(256), "POST", "p", "")).code());
        assertThrows(InvalidInputException.class, () -> IdempotentRequest.of(caller, "", "POST", "p", ""));
    }

    @Test
    void theFingerprintCoversMethodPathAndBody() {
        String a = IdempotentRequest.of(caller, "k", "POST", "tasks/1/cancel", "").fingerprint();
        assertEquals(a, IdempotentRequest.of(caller, "k", "POST", "tasks/1/cancel", "").fingerprint());
        assertNotEquals(a, IdempotentRequest.of(caller, "k", "POST", "tasks/1/retry", "").fingerprint());
        assertNotEquals(a, IdempotentRequest.of(caller, "k", "POST", "tasks/1/cancel", "{}").fingerprint());
    }

    @Test
    void runTimeoutsAreDescribedForPeople() {
        assertEquals("10 minutes", RunTimeouts.describe(Duration.ofMinutes(10)));
        assertEquals("1 minute", RunTimeouts.describe(Duration.ofMinutes(1)));
        assertEquals("90 seconds", RunTimeouts.describe(Duration.ofSeconds(90)));
        assertEquals("250 ms", RunTimeouts.describe(Duration.ofMillis(250)));
    }
}
