package com.teamdesk.tasks.task.spi;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** R1: job id of a run is "T-run"; parsing is the exact inverse. */
class TaskJobIdTest {

    @Test
    void jobIdIsTaskDashRunAndParsesBack() {
        UUID t = UUID.fromString("5f1d0a8e-3c1b-4c8e-9a55-0d7b2f9e4a11");
        assertEquals("5f1d0a8e-3c1b-4c8e-9a55-0d7b2f9e4a11-0", TaskJobId.of(t, 0).toString());
        assertEquals("5f1d0a8e-3c1b-4c8e-9a55-0d7b2f9e4a11-12", TaskJobId.of(t, 12).toString());
        assertEquals(TaskJobId.of(t, 12), TaskJobId.parse("5f1d0a8e-3c1b-4c8e-9a55-0d7b2f9e4a11-12"));
    }

    @Test
    void manualRetryGetsTheNextRunsId() {
        UUID t = UUID.randomUUID();
        assertEquals(t + "-1", TaskJobId.of(t, TaskJobId.of(t, 0).run() + 1).toString());
    }

    @Test
    void rejectsWhatIsNotATaskJobId() {
        assertThrows(IllegalArgumentException.class, () -> TaskJobId.parse("not-a-job"));
        assertThrows(IllegalArgumentException.class, () -> TaskJobId.parse(UUID.randomUUID() + "-x"));
        assertThrows(IllegalArgumentException.class, () -> TaskJobId.parse(UUID.randomUUID() + "--1"));
        assertThrows(IllegalArgumentException.class, () -> TaskJobId.parse(null));
        assertThrows(IllegalArgumentException.class, () -> TaskJobId.of(UUID.randomUUID(), -1));
    }
}
