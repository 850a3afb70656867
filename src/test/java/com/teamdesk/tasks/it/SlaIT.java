package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.ApiCase;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 53 (R56, R57) from a client's side, on the shared API server: policies set by owners and refused piece by
 * piece, replies, and a ticket's clocks through its life — started at creation, met by staff's first reply, paused
 * while PENDING, resumed by the customer's reply, re-targeted by a priority change and by a calendar edit, met when
 * CLOSED — each change moving the clock's version. The expected instants are computed from the instants the API
 * answered with (the database's clock), on a team without a calendar (every minute counts) or with one.
 */
@Execution(ExecutionMode.SAME_THREAD)
class SlaIT extends ApiCase {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.apiOnly();

    private static final String POLICIES = "{\"policies\":["
            + "{\"priority\":\"NORMAL\",\"firstResponseMinutes\":60,\"resolutionMinutes\":240,\"warnPercent\":50},"
            + "{\"priority\":\"URGENT\",\"firstResponseMinutes\":15,\"resolutionMinutes\":120}]}";

    @Override
    protected URL root() {
        return SERVER.url();
    }

    /** R59: escalations are started by the clocks only: no create path of a client takes the kind, nothing stored. */
    @Test
    void noClientCreatesAnEscalation() {
        String owner = Tokens.of(t.owner());
        for (String[] pathAndBody : List.of(new String[] {"teams/" + t.id() + "/tasks", "{\"kind\":\"SLA_ESCALATION\"}"},
                new String[] {"teams/" + t.id() + "/schedules", "{\"name\":\"Escalate\",\"cron\":\"0 9 * * MON\","
                        + "\"timeZone\":\"UTC\",\"task\":{\"kind\":\"SLA_ESCALATION\"}}"})) {
            Reply r = api.post(pathAndBody[0], owner, pathAndBody[1]);
            assertEquals(422, r.status(), pathAndBody[0] + " -> " + r);
            assertEquals("task.system_only", r.problemCode().orElse(null), r.toString());
        }
        assertEquals(0, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()));
        assertEquals(0, data.count("SELECT count(*) FROM task_schedule WHERE team_id = ?", t.id()));
        // found in review: nor cancelled (it would hide a breach) or retried (it would fire early) by staff
        assertEquals(200, api.send("PUT", api.uri(policies()), owner, POLICIES, null).status());
        String staff = Tokens.of(t.staff());
        api.post(tickets(), staff, "{\"title\":\"Escalates\"}");
        List<JsonObject> escalations = api.get("teams/" + t.id() + "/tasks?kind=SLA_ESCALATION", staff).json()
                .getJsonArray("items").getValuesAs(JsonObject.class);
        assertEquals(4, escalations.size(), escalations.toString());
        String id = escalations.get(0).getString("id");
        for (String action : List.of("cancel", "retry")) {
            Reply r = api.post("tasks/" + id + "/" + action, owner, "");
            assertEquals(422, r.status(), action + " -> " + r);
            assertEquals("task.system_only", r.problemCode().orElse(null), r.toString());
        }
        assertEquals("WAITING", data.value("SELECT status FROM background_task WHERE id = ?::uuid", id));
    }

    @Test
    void ownersSetThePoliciesAndEveryMalformedPieceIsRefused() {
        String owner = Tokens.of(t.owner());
        Reply set = api.send("PUT", api.uri(policies()), owner, POLICIES, null);
        assertEquals(200, set.status(), set.toString());
        JsonObject read = api.get(policies(), Tokens.of(t.staff())).json();
        assertEquals(2, read.getJsonArray("policies").size());
        assertEquals(75, read.getJsonArray("policies").getJsonObject(1).getInt("warnPercent"), "the default warning");
        assertEquals("sla.owner_only", api.send("PUT", api.uri(policies()), Tokens.of(t.staff()), POLICIES, null)
                .problemCode().orElse(null));
        assertEquals(403, api.get(policies(), Tokens.of(t.customer())).status());

        Map<String, String> refused = new LinkedHashMap<>();
        refused.put(POLICIES.replace("\"URGENT\"", "\"CRITICAL\""), "sla.policy_invalid");
        refused.put(POLICIES.replace("\"URGENT\"", "\"NORMAL\""), "sla.policy_invalid");
        refused.put(POLICIES.replace("\"urgent\"", "x").replace("\"URGENT\"", "\"urgent\""), "sla.policy_invalid");
        refused.put(POLICIES.replace(":60", ":0"), "sla.policy_invalid");
        refused.put(POLICIES.replace(":240", ":525601"), "sla.policy_invalid");
        refused.put(POLICIES.replace(":60", ":60.5"), "sla.policy_invalid");
        refused.put(POLICIES.replace(":60", ":-60"), "sla.policy_invalid");
        refused.put(POLICIES.replace(":60", ":6e1"), "sla.policy_invalid");
        refused.put(POLICIES.replace(":60", ":\"60\""), "sla.policy_invalid");
        refused.put(POLICIES.replace(":50", ":100"), "sla.policy_invalid");
        refused.put(POLICIES.replace(":50", ":0"), "sla.policy_invalid");
        refused.put(POLICIES.replace("\"warnPercent\":50", "\"warnPercent\":50,\"pager\":true"), "sla.policy_invalid");
        refused.put("{\"policies\":{}}", "sla.policy_invalid");
        refused.put("{\"policies\":[1]}", "sla.policy_invalid");
        refused.put("{\"rules\":[]}", "request.malformed");
        refused.forEach((body, code) -> {
            Reply r = api.send("PUT", api.uri(policies()), owner, body, null);
            assertEquals(400, r.status(), body + " -> " + r);
            assertEquals(code, r.problemCode().orElse(null), body + " -> " + r);
        });
        assertEquals(2, api.get(policies(), owner).json().getJsonArray("policies").size(), "nothing stored");
    }

    @Test
    void aTicketsClocksFollowItsLifeAndEveryChangeMovesTheirVersion() {
        String owner = Tokens.of(t.owner());
        String staff = Tokens.of(t.staff());
        String customer = Tokens.of(t.customer());
        assertEquals(200, api.send("PUT", api.uri(policies()), owner, POLICIES, null).status());

        JsonObject ticket = api.post(tickets(), customer, "{\"title\":\"Printer on fire\"}").json();
        String id = ticket.getString("id");
        Instant created = Instant.parse(ticket.getString("createdAt"));
        JsonObject first = clock(id, customer, "FIRST_RESPONSE");
        JsonObject resolution = clock(id, customer, "RESOLUTION");
        assertEquals("RUNNING", first.getString("state"));
        assertEquals(created.plus(Duration.ofMinutes(60)), instant(first, "dueAt"), "no calendar: every minute counts");
        assertEquals(created.plus(Duration.ofMinutes(30)), instant(first, "warnAt"), "50 % of an hour");
        assertEquals(created.plus(Duration.ofMinutes(240)), instant(resolution, "dueAt"));
        assertEquals(1, resolution.getInt("version"));

        // staff's first reply meets the first response; a customer's does not
        assertEquals(201, reply(id, customer, "Still burning").status());
        assertEquals("RUNNING", clock(id, staff, "FIRST_RESPONSE").getString("state"));
        JsonObject staffReply = reply(id, staff, "On our way").json();
        assertTrue(staffReply.getBoolean("fromStaff"));
        first = clock(id, staff, "FIRST_RESPONSE");
        assertEquals("MET", first.getString("state"));
        assertEquals(staffReply.getString("createdAt"), first.getString("endedAt"));
        assertEquals(2, first.getInt("version"));

        // PENDING pauses the resolution; the customer's reply reopens the ticket and resumes it, shifted
        JsonObject pending = patch(id, staff, ticket(id, staff).getInt("version"), "{\"status\":\"PENDING\"}");
        Instant pausedAt = Instant.parse(pending.getString("updatedAt"));
        resolution = clock(id, staff, "RESOLUTION");
        assertEquals("PAUSED", resolution.getString("state"));
        assertTrue(resolution.isNull("dueAt"));
        assertEquals(2, resolution.getInt("version"));
        assertEquals(201, reply(id, customer, "Here is the photo").status());
        JsonObject reopened = ticket(id, staff);
        assertEquals("OPEN", reopened.getString("status"), "the customer's reply reopened it");
        Instant resumedAt = Instant.parse(reopened.getString("updatedAt"));
        resolution = clock(id, staff, "RESOLUTION");
        assertEquals("RUNNING", resolution.getString("state"));
        assertEquals(3, resolution.getInt("version"));
        Duration used = Duration.between(created, pausedAt);
        assertEquals(resumedAt.plus(Duration.ofMinutes(240).minus(used)), instant(resolution, "dueAt"),
                "the time while PENDING did not count");

        // URGENT re-targets to its 2 hours; CLOSED meets it; reopening starts nothing
        JsonObject urgent = patch(id, staff, reopened.getInt("version"), "{\"priority\":\"URGENT\"}");
        resolution = clock(id, staff, "RESOLUTION");
        assertEquals(120, resolution.getInt("targetMinutes"));
        assertEquals(4, resolution.getInt("version"));
        Instant retargeted = Instant.parse(urgent.getString("updatedAt"));
        Duration usedNow = used.plus(Duration.between(resumedAt, retargeted));
        assertEquals(retargeted.plus(Duration.ofMinutes(120).minus(usedNow)), instant(resolution, "dueAt"));
        JsonObject closed = patch(id, staff, urgent.getInt("version"), "{\"status\":\"CLOSED\"}");
        resolution = clock(id, staff, "RESOLUTION");
        assertEquals("MET", resolution.getString("state"));
        assertEquals(closed.getString("updatedAt"), resolution.getString("endedAt"));
        patch(id, staff, closed.getInt("version"), "{\"status\":\"OPEN\"}");
        assertEquals("MET", clock(id, staff, "RESOLUTION").getString("state"), "final: a reopen starts nothing");
        assertEquals(2, data.count("SELECT count(*) FROM ticket_sla_clock WHERE ticket_id = ?::uuid", id));

        // a promise withdrawn (LOW has no policy) and made again (NORMAL) goes on from its version
        String moving = api.post(tickets(), staff, "{\"title\":\"Moving\"}").json().getString("id");
        JsonObject m = patch(moving, staff, ticket(moving, staff).getInt("version"), "{\"priority\":\"LOW\"}");
        assertEquals(0, api.get(tickets() + "/" + moving + "/sla", staff).json().getJsonArray("clocks").size());
        patch(moving, staff, m.getInt("version"), "{\"priority\":\"NORMAL\"}");
        assertEquals(3, clock(moving, staff, "RESOLUTION").getInt("version"), "1 started, 2 withdrawn, 3 again");

        // LOW has no policy: no clock; the ticket's readers only
        String low = api.post(tickets(), staff, "{\"title\":\"Typo\",\"priority\":\"LOW\"}").json().getString("id");
        assertEquals(0, api.get(tickets() + "/" + low + "/sla", staff).json().getJsonArray("clocks").size());
        assertEquals(404, api.get(tickets() + "/" + id + "/sla", Tokens.of(t.outsider())).status());
        assertEquals(3, api.get(tickets() + "/" + id + "/replies", customer).json().getJsonArray("items").size());
        Reply empty = reply(id, staff, "   ");
        assertEquals("ticket.reply_invalid", empty.problemCode().orElse(null), empty.toString());
    }

    /** R58: the breach board lists the team's running promises soonest due first, for staff only. */
    @Test
    void theBreachBoardListsRunningPromisesSoonestFirst() {
        String owner = Tokens.of(t.owner());
        String staff = Tokens.of(t.staff());
        assertEquals(200, api.send("PUT", api.uri(policies()), owner, POLICIES, null).status());
        String normal = api.post(tickets(), staff, "{\"title\":\"Slow VPN\"}").json().getString("id");
        String urgent = api.post(tickets(), staff, "{\"title\":\"Site down\",\"priority\":\"URGENT\"}").json()
                .getString("id");
        List<JsonObject> lines = board(staff, 50);
        assertEquals(List.of(urgent + " FIRST_RESPONSE", normal + " FIRST_RESPONSE", urgent + " RESOLUTION",
                normal + " RESOLUTION"), lines.stream().map(l -> l.getString("ticketId") + " " + l.getString("metric"))
                .toList(), "15 min, 60 min, 120 min, 240 min");
        assertEquals("Site down", lines.get(0).getString("title"));
        assertFalse(lines.get(0).getBoolean("overdue"));
        assertEquals(2, board(staff, 2).size());

        assertEquals(201, reply(urgent, staff, "Looking").status());
        assertEquals(3, board(staff, 50).size(), "a met promise leaves the board");
        patch(normal, staff, ticket(normal, staff).getInt("version"), "{\"status\":\"PENDING\"}");
        assertEquals(List.of(urgent + " RESOLUTION"), board(staff, 50).stream()
                .map(l -> l.getString("ticketId") + " " + l.getString("metric")).toList(), "a paused one too");

        assertEquals(403, api.get(board(), Tokens.of(t.customer())).status());
        assertEquals(404, api.get(board(), Tokens.of(t.outsider())).status());
        assertEquals("page.limit", api.get(board() + "?limit=0", staff).problemCode().orElse(null));
        assertEquals("page.limit", api.get(board() + "?limit=501", staff).problemCode().orElse(null));
    }

    private String board() {
        return "teams/" + t.id() + "/sla-board";
    }

    private List<JsonObject> board(String token, int limit) {
        Reply r = api.get(board() + "?limit=" + limit, token);
        assertEquals(200, r.status(), r.toString());
        return r.json().getJsonArray("items").getValuesAs(JsonObject.class);
    }

    /** R57: a holiday added while a clock runs moves its due instant, in the calendar's commit, with a new version. */
    @Test
    void aHolidayAddedWhileAClockRunsMovesItsDueInstant() {
        String owner = Tokens.of(t.owner());
        String staff = Tokens.of(t.staff());
        // every day 00:00-23:59 in Shanghai: business time is all but one minute a day
        StringBuilder shifts = new StringBuilder();
        for (String d : List.of("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")) {
            shifts.append(shifts.length() == 0 ? "" : ",").append("{\"day\":\"").append(d)
                    .append("\",\"start\":\"00:00\",\"end\":\"23:59\"}");
        }
        String calendar = "{\"zone\":\"Asia/Shanghai\",\"shifts\":[" + shifts + "]}";
        assertEquals(200, api.send("PUT", api.uri("teams/" + t.id() + "/calendar"), owner, calendar, null).status());
        assertEquals(200, api.send("PUT", api.uri(policies()), owner, POLICIES, null).status());
        String id = api.post(tickets(), staff, "{\"title\":\"VPN down\"}").json().getString("id");
        JsonObject before = clock(id, staff, "RESOLUTION");
        Instant due = instant(before, "dueAt");
        LocalDate dueDay = due.atZone(ZoneId.of("Asia/Shanghai")).toLocalDate();

        String withHoliday = calendar.replace("]}", "],\"holidays\":[{\"first\":\"" + dueDay + "\",\"last\":\"" + dueDay
                + "\",\"name\":\"Closed\"}]}");
        assertEquals(200, api.send("PUT", api.uri("teams/" + t.id() + "/calendar"), owner, withHoliday, null).status());
        JsonObject after = clock(id, staff, "RESOLUTION");
        assertEquals(before.getInt("version") + 1, after.getInt("version"));
        assertTrue(instant(after, "dueAt").isAfter(due), before + " -> " + after);
        assertEquals(dueDay.plusDays(1), instant(after, "dueAt").atZone(ZoneId.of("Asia/Shanghai")).toLocalDate(),
                "what was left on the holiday is counted on the day after");
        assertFalse(after.getBoolean("overdue"));
        assertTrue(after.getString("dueLocal").endsWith("+08:00"), after.toString());
    }

    private String policies() {
        return "teams/" + t.id() + "/sla-policies";
    }

    private String tickets() {
        return "teams/" + t.id() + "/tickets";
    }

    private JsonObject ticket(String id, String token) {
        return api.get(tickets() + "/" + id, token).json();
    }

    private JsonObject patch(String id, String token, int version, String body) {
        Reply r = api.patch(tickets() + "/" + id, token, "\"" + version + "\"", body);
        assertEquals(200, r.status(), r.toString());
        return r.json();
    }

    private Reply reply(String id, String token, String body) {
        return api.post(tickets() + "/" + id + "/replies", token, "{\"body\":\"" + body + "\"}");
    }

    private JsonObject clock(String id, String token, String metric) {
        Reply r = api.get(tickets() + "/" + id + "/sla", token);
        assertEquals(200, r.status(), r.toString());
        return r.json().getJsonArray("clocks").getValuesAs(JsonObject.class).stream()
                .filter(c -> c.getString("metric").equals(metric)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + metric + " clock: " + r));
    }

    private static Instant instant(JsonObject o, String key) {
        return Instant.parse(o.getString(key));
    }
}
