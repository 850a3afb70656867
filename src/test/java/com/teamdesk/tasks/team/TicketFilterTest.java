package com.teamdesk.tasks.team;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.teamdesk.tasks.common.InvalidInputException;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.time.ZoneId;
import java.util.EnumSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Filters are validated at creation (400) and round-trip through the ledger unchanged. */
class TicketFilterTest {

    private static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    @Test
    void parsesEveryFilterAndDatesAreWholeDaysInTheZone() {
        UUID a = UUID.randomUUID();
        TicketFilter f = TicketFilter.fromJson(json("{\"status\":[\"open\",\"PENDING\"],\"assigneeId\":\"" + a
                + "\",\"createdFrom\":\"2026-11-01\",\"createdTo\":\"2026-11-02\",\"q\":\" printer \"}"), "Asia/Shanghai");
        assertEquals(EnumSet.of(TicketStatus.OPEN, TicketStatus.PENDING), f.statuses());
        assertEquals(a, f.assigneeId());
        assertEquals(Instant.parse("2026-10-31T16:00:00Z"), f.createdFrom());
        assertEquals(Instant.parse("2026-11-02T16:00:00Z"), f.createdTo());
        assertEquals("printer", f.q());
        assertEquals(ZoneId.of("Asia/Shanghai"), f.timeZone());
    }

    @Test
    void roundTripsThroughTheStoredForm() {
        TicketFilter f = TicketFilter.fromJson(json("{\"status\":\"CLOSED\",\"createdFrom\":\"2026-11-01T10:00:00+02:00\","
                + "\"q\":\"50%_off\"}"), "+05:30");
        assertEquals(f, TicketFilter.fromStoredJson(f.toJson()));
        TicketFilter none = TicketFilter.fromJson(null, null);
        assertEquals(none, TicketFilter.fromStoredJson(none.toJson()));
        assertNull(none.q());
    }

    @Test
    void refusesBadInputWithAClearCode() {
        for (String bad : new String[] {"{\"status\":[\"DONE\"]}", "{\"status\":5}", "{\"assigneeId\":\"nope\"}",
            "{\"createdFrom\":\"yesterday\"}", "{\"createdFrom\":\"2026-11-02\",\"createdTo\":\"2026-11-01\"}",
            "{\"colour\":\"red\"}", "{\"q\":\"" + "x".repeat(201) + "\"}", "{\"q\":7}"}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> TicketFilter.fromJson(json(bad), null),
                    bad);
            assertEquals("filters.invalid", e.code());
            assertEquals(400, e.status());
        }
        assertThrows(InvalidInputException.class, () -> TicketFilter.fromJson(null, "Mars/Olympus"));
        assertThrows(InvalidInputException.class, () -> TicketFilter.fromStoredJson("not json"));
    }
}
