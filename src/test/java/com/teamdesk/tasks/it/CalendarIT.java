package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.ApiCase;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.JsonObject;
import java.net.URL;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 53 (R55) from a client's side, on the shared API server: a team's calendar is set by its owners, read by its
 * staff, refused piece by piece when malformed (nothing stored), guarded by its version, and its holidays come from an
 * uploaded iCalendar file. Every test makes its own team.
 */
@Execution(ExecutionMode.SAME_THREAD)
class CalendarIT extends ApiCase {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.apiOnly();

    private static final String BERLIN_WEEK = "{\"zone\":\"Europe/Berlin\",\"shifts\":["
            + "{\"day\":\"MONDAY\",\"start\":\"09:00\",\"end\":\"12:00\"},"
            + "{\"day\":\"MONDAY\",\"start\":\"13:00\",\"end\":\"17:00\"},"
            + "{\"day\":\"FRIDAY\",\"start\":\"22:00\",\"end\":\"06:00\"}],"
            + "\"holidays\":[{\"first\":\"2027-12-24\",\"last\":\"2027-12-26\",\"name\":\"Christmas\"}]}";

    @Override
    protected URL root() {
        return SERVER.url();
    }

    @Test
    void ownersSetItStaffReadItAndItsVersionGuardsAChange() {
        String owner = Tokens.of(t.owner());
        String staff = Tokens.of(t.staff());
        assertEquals("calendar.not_found", api.get(calendar(), staff).problemCode().orElse(null));

        assertEquals(412, put(owner, BERLIN_WEEK, "\"1\"").status(), "If-Match never matches what does not exist");
        Reply set = put(owner, BERLIN_WEEK, null);
        assertEquals(200, set.status(), set.toString());
        assertEquals("\"1\"", set.header("ETag"));
        JsonObject c = api.get(calendar(), staff).json();
        assertEquals("Europe/Berlin", c.getString("zone"));
        assertEquals(3 * 60 + 4 * 60 + 8 * 60, c.getInt("weeklyMinutes"), "the night shift counts its 8 hours");
        assertEquals("FRIDAY", c.getJsonArray("shifts").getJsonObject(2).getString("day"));
        assertEquals("2027-12-26", c.getJsonArray("holidays").getJsonObject(0).getString("last"));
        assertEquals(t.owner().toString(), c.getString("updatedBy"));

        assertEquals("calendar.owner_only", put(staff, BERLIN_WEEK, null).problemCode().orElse(null));
        Reply customer = api.get(calendar(), Tokens.of(t.customer()));
        assertEquals(403, customer.status(), customer.toString());
        assertEquals(404, api.get(calendar(), Tokens.of(t.outsider())).status());

        assertEquals(200, put(owner, BERLIN_WEEK.replace("Europe/Berlin", "Asia/Shanghai"), "\"1\"").status());
        Reply stale = put(owner, BERLIN_WEEK, "\"1\"");
        assertEquals(412, stale.status(), stale.toString());
        assertEquals("calendar.version_mismatch", stale.problemCode().orElse(null));
        assertEquals(412, put(owner, BERLIN_WEEK, "W/\"2\"").status(), "a weak validator never matches");
        JsonObject now = api.get(calendar(), staff).json();
        assertEquals("Asia/Shanghai", now.getString("zone"));
        assertEquals(2, now.getInt("version"));
    }

    @Test
    void everyMalformedPieceIsRefusedWithItsCodeAndNothingIsStored() {
        String owner = Tokens.of(t.owner());
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put(BERLIN_WEEK.replace("Europe/Berlin", "Mars/Olympus"), "calendar.zone_unknown");
        refused.put(BERLIN_WEEK.replace("Europe/Berlin", "+08:00"), "calendar.zone_unknown");
        refused.put(BERLIN_WEEK.replace("\"zone\":\"Europe/Berlin\",", ""), "calendar.zone_unknown");
        refused.put(BERLIN_WEEK.replace("\"13:00\"", "\"11:00\""), "calendar.interval_overlap");
        refused.put(BERLIN_WEEK.replace("\"end\":\"12:00\"", "\"end\":\"09:00\""), "calendar.interval_invalid");
        refused.put(BERLIN_WEEK.replace("\"17:00\"", "\"24:00\""), "calendar.interval_invalid");
        refused.put(BERLIN_WEEK.replace("\"09:00\"", "\"9:00\""), "calendar.interval_invalid");
        refused.put(BERLIN_WEEK.replace("\"09:00\"", "\"09:00:30\""), "calendar.interval_invalid");
        refused.put(BERLIN_WEEK.replace("\"MONDAY\"", "\"monday\""), "calendar.interval_invalid");
        refused.put(BERLIN_WEEK.replace("\"FRIDAY\"", "\"FUNDAY\""), "calendar.interval_invalid");
        refused.put(BERLIN_WEEK.replace("\"start\":\"22:00\"", "\"start\":\"22:00\",\"lunch\":true"),
                "calendar.interval_invalid");
        refused.put(BERLIN_WEEK.replace("\"start\":\"22:00\"", "\"start\":22"), "calendar.interval_invalid");
        refused.put("{\"zone\":\"Europe/Berlin\",\"shifts\":[]}", "calendar.no_working_time");
        refused.put("{\"zone\":\"Europe/Berlin\",\"shifts\":{}}", "calendar.interval_invalid");
        refused.put(BERLIN_WEEK.replace("\"2027-12-26\"", "\"2027-12-23\""), "calendar.holiday_invalid");
        refused.put(BERLIN_WEEK.replace("\"2027-12-26\"", "\"2027-02-30\""), "calendar.holiday_invalid");
        refused.put(BERLIN_WEEK.replace("\"2027-12-26\"", "\"27-12-26\""), "calendar.holiday_invalid");
        refused.put(BERLIN_WEEK.replace("\"Christmas\"", "\"" + "x".repeat(201) + "\""), "calendar.holiday_invalid");
        refused.put(BERLIN_WEEK.replace("\"holidays\":[", "\"holidays\":[7,"), "calendar.holiday_invalid");
        refused.put(BERLIN_WEEK.replace("{\"zone\"", "{\"owner\":1,\"zone\""), "request.malformed");
        refused.put("[]", "request.malformed");
        refused.forEach((body, code) -> {
            Reply r = put(owner, body, null);
            assertEquals(400, r.status(), body + " -> " + r);
            assertEquals(code, r.problemCode().orElse(null), body + " -> " + r);
        });
        assertEquals(0, data.count("SELECT count(*) FROM team_calendar WHERE team_id = ?", t.id()));
    }

    @Test
    void holidaysComeFromAnICalendarFile() {
        String owner = Tokens.of(t.owner());
        String ics = ics("BEGIN:VEVENT\r\nUID:a@x\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:Spring Festival\r\n"
                + "DTSTART;VALUE=DATE:20270206\r\nDTEND;VALUE=DATE:20270213\r\nEND:VEVENT\r\n"
                + "BEGIN:VEVENT\r\nUID:b@x\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:Labour Day\r\n"
                + "DTSTART;VALUE=DATE:20270501\r\nEND:VEVENT\r\n"
                + "BEGIN:VEVENT\r\nUID:c@x\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:Unity Day\r\n"
                + "DTSTART:20271002T220000Z\r\nDURATION:PT24H\r\nEND:VEVENT\r\n"
                + "BEGIN:VEVENT\r\nUID:d@x\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:Bridge\r\n"
                + "DTSTART;VALUE=DATE:20271104\r\nDURATION:P2D\r\nEND:VEVENT\r\n");
        assertEquals("calendar.not_found", importIcs(owner, ics).problemCode().orElse(null), "nothing to add to yet");
        assertEquals(200, put(owner, BERLIN_WEEK, null).status());
        assertEquals("calendar.owner_only", importIcs(Tokens.of(t.staff()), ics).problemCode().orElse(null));

        Reply imported = importIcs(owner, ics);
        assertEquals(200, imported.status(), imported.toString());
        assertEquals("\"2\"", imported.header("ETag"));
        var holidays = imported.json().getJsonArray("holidays");
        assertEquals(5, holidays.size(), holidays.toString());
        assertEquals("{\"first\":\"2027-02-06\",\"last\":\"2027-02-12\",\"name\":\"Spring Festival\"}",
                holidays.get(1).toString(), "DTEND is exclusive");
        assertEquals("{\"first\":\"2027-05-01\",\"last\":\"2027-05-01\",\"name\":\"Labour Day\"}",
                holidays.get(2).toString());
        assertEquals("{\"first\":\"2027-10-03\",\"last\":\"2027-10-03\",\"name\":\"Unity Day\"}",
                holidays.get(3).toString(), "a UTC event read in the team's zone (Berlin), its end exclusive");
        assertEquals("{\"first\":\"2027-11-04\",\"last\":\"2027-11-05\",\"name\":\"Bridge\"}",
                holidays.get(4).toString(), "DURATION instead of DTEND");
        assertEquals(5, importIcs(owner, ics).json().getJsonArray("holidays").size(), "the same days once");

        for (String bad : List.of("not a calendar", ics(""), ics("BEGIN:VEVENT\r\nUID:c@x\r\nSUMMARY:x\r\nEND:VEVENT\r\n"),
                ics("BEGIN:VEVENT\r\nUID:d@x\r\nDTSTART;VALUE=DATE:20270101\r\nRRULE:FREQ=YEARLY\r\nEND:VEVENT\r\n"),
                ics("BEGIN:VEVENT\r\nUID:e@x\r\nDTSTART;VALUE=DATE:20270105\r\nDTEND;VALUE=DATE:20270101\r\nEND:VEVENT\r\n"),
                ics("BEGIN:VEVENT\r\nUID:f@x\r\nDTSTART;VALUE=DATE:20270105\r\nDURATION:PT3H\r\nEND:VEVENT\r\n"),
                ics("BEGIN:VEVENT\r\nUID:g@x\r\nDTSTART:2027XX05\r\nEND:VEVENT\r\n"))) {
            Reply r = importIcs(owner, bad);
            assertEquals(400, r.status(), bad + " -> " + r);
            assertEquals("calendar.ical_malformed", r.problemCode().orElse(null), bad + " -> " + r);
        }
        assertEquals(5, api.get(calendar(), owner).json().getJsonArray("holidays").size(), "nothing stored by a refusal");

        // found in review: a time zone definition iCal4j would expand since 1601 is never parsed; a holiday past
        // 2999 is refused before it is stored, so the calendar stays readable
        Reply zoneBomb = importIcs(owner, ics("BEGIN:VTIMEZONE\r\nTZID:Evil\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000"
                + "\r\nRRULE:FREQ=SECONDLY\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
                + "BEGIN:VEVENT\r\nUID:z@x\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:Zone\r\nDTSTART;VALUE=DATE:20271225"
                + "\r\nEND:VEVENT\r\n"));
        assertEquals(200, zoneBomb.status(), zoneBomb.toString());
        Reply far = importIcs(owner, ics("BEGIN:VEVENT\r\nUID:y@x\r\nDTSTAMP:20270101T000000Z\r\n"
                + "DTSTART;VALUE=DATE:99991231\r\nDURATION:P3D\r\nEND:VEVENT\r\n"));
        assertEquals("calendar.holiday_invalid", far.problemCode().orElse(null), far.toString());
        assertEquals(6, api.get(calendar(), owner).json().getJsonArray("holidays").size());
        Reply json = api.send("POST", api.uri(calendar() + "/holidays"), owner, "{}", null);
        assertEquals(415, json.status(), "an iCalendar file, not JSON: " + json);
        assertTrue(json.header("Content-Type").startsWith("application/problem+json"), json.toString());
    }

    private String calendar() {
        return "teams/" + t.id() + "/calendar";
    }

    private Reply put(String token, String body, String ifMatch) {
        return api.send("PUT", api.uri(calendar()), token, body, ifMatch == null ? null : List.of("If-Match", ifMatch));
    }

    private Reply importIcs(String token, String ics) {
        return api.send("POST", api.uri(calendar() + "/holidays"), token, ics, List.of("Content-Type", "text/calendar"));
    }

    private static String ics(String events) {
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//TeamDesk//CalendarIT//EN\r\n" + events + "END:VCALENDAR\r\n";
    }
}
