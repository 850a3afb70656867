package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.digest.DigestHandler;
import com.teamdesk.tasks.task.export.ExportHandler;
import com.teamdesk.tasks.task.reminder.ReminderHandler;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 50: what the contract takes from the kinds. Each kind's field schemas are JSON objects that use only the
 * keys {@link ContractFilter} turns into the document (any other would drop the kinds' bodies from it), and a
 * kind's body is named after the kind.
 */
class ContractFilterTest {

    @Test
    void everyKindsFieldSchemaIsJsonTheFilterReads() {
        List<TaskKindHandler<?>> kinds = List.of(new ExportHandler(), new ReminderHandler(), new DigestHandler());
        int described = 0;
        for (TaskKindHandler<?> kind : kinds) {
            for (RequestField f : kind.requestFields()) {
                if (f.schema() == null) {
                    continue;
                }
                described++;
                JsonObject o;
                try (var r = Jsons.PROVIDER.createReader(new StringReader(f.schema()))) {
                    o = r.readObject();
                }
                assertKeys(o, f.name());
            }
        }
        assertEquals(7, described, "every field of the three kinds is described");
        assertTrue(new ReminderHandler().requestFields().stream().filter(RequestField::required).count() == 2,
                "a reminder needs its ticket and message");
        assertFalse(new ExportHandler().requestFields().stream().anyMatch(RequestField::required));
    }

    private static void assertKeys(JsonObject o, String where) {
        for (String key : o.keySet()) {
            assertTrue(ContractFilter.SCHEMA_KEYS.contains(key), where + " uses " + key);
        }
        if (o.get("properties") instanceof JsonObject props) {
            props.forEach((name, v) -> assertKeys(v.asJsonObject(), where + "." + name));
        }
        if (o.get("items") instanceof JsonObject items) {
            assertKeys(items, where + "[]");
        }
        assertTrue(!o.containsKey("type") || o.get("type").getValueType() == JsonValue.ValueType.STRING, where);
    }

    @Test
    void aKindsBodyIsNamedAfterTheKind() {
        assertEquals("ExportTaskCreate", ContractFilter.bodyName(TaskKind.of("EXPORT")));
        assertEquals("SlaEscalationTaskCreate", ContractFilter.bodyName(TaskKind.of("SLA_ESCALATION")));
    }
}
