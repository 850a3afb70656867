package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.task.export.ExportHandler;
import com.teamdesk.tasks.task.reminder.ReminderHandler;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.CoreRejection;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.TaskRejected;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Task kinds are found without a switch or a list: the registered handlers; two handlers of a kind fail loudly. */
class TaskKindsTest {

    /** A handler that only knows its kind. */
    private record Fake(TaskKind kind) implements TaskKindHandler<String> {
        @Override
        public List<RequestField> requestFields() {
            return List.of();
        }

        @Override
        public Accepted<String> accept(NewTaskRequest request, Caller caller) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String store(String params) {
            return params;
        }

        @Override
        public String load(String stored) {
            return stored;
        }

        @Override
        public void run(Execution execution, String params) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Duration runTimeout() {
            return Duration.ofSeconds(1);
        }
    }

    @Test
    void everyKindWithExactlyOneHandlerIsIndexedByItsKind() {
        Fake export = new Fake(TaskKind.of("EXPORT"));
        Fake reminder = new Fake(TaskKind.of("REMINDER"));
        Map<TaskKind, TaskKindHandler<?>> index = TaskKinds.index(List.of(reminder, export));
        assertEquals(List.of(TaskKind.of("EXPORT"), TaskKind.of("REMINDER")), List.copyOf(index.keySet()),
                "one entry per kind, in the order of their names");
        assertSame(export, index.get(TaskKind.of("EXPORT")));
        assertSame(reminder, index.get(TaskKind.of("REMINDER")));
    }

    /** Issue 29: the kinds are the registered handlers; none at all is a broken deployment. */
    @Test
    void noHandlerAtAllFailsLoudly() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TaskKinds.index(List.of()));
        assertTrue(e.getMessage().contains("no TaskKindHandler bean"), e.getMessage());
    }

    /**
     * A stored row of a kind no handler declares (removed since, or written by an instance running a kind this
     * one does not) is handled by a stand-in: no file, and its run is rejected at once, not retried into a
     * crash; the API lists it instead of answering 500.
     */
    @Test
    void aStoredKindWithoutAHandlerIsRejectedNotCrashed() {
        TaskKindHandler<String> gone = TaskKinds.unknown(TaskKind.of("GONE"));
        assertEquals(TaskKind.of("GONE"), gone.kind());
        assertTrue(!gone.offersFile());
        assertEquals("Gone", gone.info().label());
        TaskRejected e = assertThrows(TaskRejected.class, () -> gone.load("{}"));
        assertEquals(CoreRejection.UNKNOWN_KIND, e.reason());
        assertEquals("Rejected: this server does not run tasks of this kind.", e.reason().message());
    }

    /** A kind's name is what the API and the table hold: upper-case letters, digits, _, at most 32. */
    @Test
    void aKindIsNamedByUpperCaseLettersDigitsAndUnderscores() {
        assertEquals("DIGEST_2", TaskKind.of("DIGEST_2").name());
        assertEquals("EXPORT", TaskKind.of("EXPORT").toString());
        for (String bad : new String[] {"", "export", "2FA", "A-B", "A".repeat(33), " EXPORT"}) {
            assertThrows(IllegalArgumentException.class, () -> TaskKind.of(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> TaskKind.of(null));
    }

    @Test
    void aKindWithTwoHandlersFailsLoudly() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TaskKinds.index(
                List.of(new Fake(TaskKind.of("EXPORT")), new Fake(TaskKind.of("REMINDER")), new Fake(TaskKind.of("EXPORT")))));
        assertTrue(e.getMessage().contains("EXPORT has two handlers"), e.getMessage());
    }

    @Test
    void storedParametersThatNoLongerValidateAreRejectedInTheKindsOwnWords() {
        TaskRejected export = assertThrows(TaskRejected.class,
                () -> new ExportHandler().load("{\"status\":[\"ARCHIVED\"],\"timeZone\":\"UTC\"}"));
        assertEquals("Rejected: the export filters are not valid.", export.reason().message());
        TaskRejected reminder = assertThrows(TaskRejected.class,
                () -> new ReminderHandler().load("{\"ticketId\":\"x\",\"message\":\"m\"}"));
        assertEquals("Rejected: the reminder parameters are not valid.", reminder.reason().message());
    }
}
