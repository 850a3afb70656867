package com.teamdesk.tasks.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.task.export.ExportHandler;
import com.teamdesk.tasks.task.reminder.ReminderHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Task kinds are found without a switch, and a kind with no handler or two fails loudly at startup. */
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
        Fake export = new Fake(TaskKind.EXPORT);
        Fake reminder = new Fake(TaskKind.REMINDER);
        Map<TaskKind, TaskKindHandler<?>> index = TaskKinds.index(List.of(reminder, export));
        assertEquals(List.of(TaskKind.values()), List.copyOf(index.keySet()), "one entry per kind, in enum order");
        assertSame(export, index.get(TaskKind.EXPORT));
        assertSame(reminder, index.get(TaskKind.REMINDER));
    }

    @Test
    void aKindWithoutAHandlerFailsLoudly() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TaskKinds.index(List.of(new Fake(TaskKind.EXPORT))));
        assertTrue(e.getMessage().contains("REMINDER has no handler"), e.getMessage());
    }

    @Test
    void aKindWithTwoHandlersFailsLoudly() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> TaskKinds.index(
                List.of(new Fake(TaskKind.EXPORT), new Fake(TaskKind.REMINDER), new Fake(TaskKind.EXPORT))));
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
