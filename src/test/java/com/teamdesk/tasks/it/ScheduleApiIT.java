package com.teamdesk.tasks.it;

import static com.teamdesk.tasks.it.ApiIT.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.ApiCase;
import com.teamdesk.tasks.it.support.RawHttp;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URL;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 31: the schedules' REST API from a client's side (docs/api.md "Schedules"), against the real server,
 * PostgreSQL, Redis and worker: create, list, read, change with If-Match, pause, resume, run now, delete; the next
 * runs in the schedule's zone and in UTC; Idempotency-Key; every refused input (a code, nothing stored); the
 * operator's list and pause; closing a ticket disables its reminder schedule. The timers are off, so no slot is
 * materialised behind the tests' backs (the sweep's own tests are ScheduleSlotsIT's); a team may have
 * {@value #MAX_PER_TEAM} schedules on its server. Every test makes its own team.
 */
@Execution(ExecutionMode.SAME_THREAD)
class ScheduleApiIT extends ApiCase {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.of(SharedServer.API_AND_WORKER);
    /** Schedules a team may have on this class's server ({@link SharedServer#API_AND_WORKER}). */
    private static final int MAX_PER_TEAM = 3;
    /** Keys of a schedule body (docs/api.md "Schedule body"). */
    private static final Set<String> SCHEDULE_KEYS = Set.of("id", "teamId", "ownerId", "name", "cron", "timeZone", "task",
            "missedSlots", "overlap", "enabled", "disabledReason", "nextRuns", "lastSlotAt", "occurrences", "version",
            "createdBy", "createdAt", "updatedBy", "updatedAt", "links");
    private static final String WEEKLY_EXPORT = "{\"name\":\"Weekly export\",\"cron\":\"0 9 * * MON\","
            + "\"timeZone\":\"Asia/Shanghai\",\"task\":{\"kind\":\"EXPORT\",\"scope\":\"TEAM\","
            + "\"filters\":{\"status\":[\"OPEN\",\"PENDING\"]},\"timeZone\":\"Asia/Shanghai\"}}";

    @Override
    protected URL root() {
        return SERVER.url();
    }

    @Test
    void aScheduleIsCreatedReadChangedPausedResumedRunNowAndDeleted() {
        String owner = Tokens.of(t.owner());
        Reply created = api.post(schedules(), owner, WEEKLY_EXPORT);
        assertEquals(201, created.status(), created.toString());
        JsonObject s = created.json();
        String id = s.getString("id");
        assertEquals(SCHEDULE_KEYS, s.keySet());
        assertEquals("/api/v1/schedules/" + id, created.header("Location"), "relative, never from Host");
        assertEquals("\"1\"", created.header("ETag"));
        assertEquals(1, s.getInt("version"));
        assertEquals("Weekly export", s.getString("name"));
        assertEquals(t.id().toString(), s.getString("teamId"));
        assertEquals(t.owner().toString(), s.getString("ownerId"));
        assertEquals(t.owner().toString(), s.getString("createdBy"));
        assertEquals("RUN_ONCE", s.getString("missedSlots"));
        assertEquals("SKIP", s.getString("overlap"));
        assertTrue(s.getBoolean("enabled"));
        assertEquals(JsonValue.NULL, s.get("disabledReason"));
        assertEquals(JsonValue.NULL, s.get("lastSlotAt"));
        assertEquals(JsonValue.NULL, s.get("occurrences"), "only GET of one schedule lists its occurrences");
        JsonObject task = s.getJsonObject("task");
        assertEquals("EXPORT", task.getString("kind"));
        assertEquals("TEAM", task.getString("scope"));
        assertEquals("Asia/Shanghai", task.getJsonObject("filters").getString("timeZone"), "the stored parameters");
        assertEquals(5, s.getJsonArray("nextRuns").size());
        JsonObject links = s.getJsonObject("links");
        assertEquals("/api/v1/schedules/" + id, links.getString("self"));
        assertEquals("/api/v1/schedules/" + id + "/pause", links.getString("pause"));
        assertEquals("/api/v1/schedules/" + id + "/run-now", links.getString("runNow"));
        assertFalse(links.containsKey("resume"));

        Reply read = api.get("schedules/" + id, owner);
        assertEquals(200, read.status(), read.toString());
        assertEquals("\"1\"", read.header("ETag"));
        assertEquals(JsonValue.ValueType.ARRAY, read.json().get("occurrences").getValueType());
        assertEquals(0, read.json().getJsonArray("occurrences").size());
        assertEquals(s.getJsonArray("nextRuns"), read.json().getJsonArray("nextRuns"));
        assertEquals(List.of(id), ids(api.get(schedules(), owner)));

        // If-Match as for a ticket: none 428, stale or weak 412, the current version 200 with the next one.
        String rename = "{\"name\":\"Monday export\"}";
        assertProblem(api.patch("schedules/" + id, owner, null, rename), 428, "schedule.if_match_required");
        assertProblem(api.patch("schedules/" + id, owner, "\"7\"", rename), 412, "schedule.version_mismatch");
        assertProblem(api.patch("schedules/" + id, owner, "W/\"1\"", rename), 412, "schedule.version_mismatch");
        assertProblem(api.patch("schedules/" + id, owner, "one", rename), 400, "schedule.if_match_invalid");
        assertEquals(1L, data.count("SELECT version FROM task_schedule WHERE id = ?::uuid", id), "refused: unchanged");
        Reply renamed = api.patch("schedules/" + id, owner, "\"1\"", rename);
        assertEquals(200, renamed.status(), renamed.toString());
        assertEquals("\"2\"", renamed.header("ETag"));
        assertEquals("Monday export", renamed.json().getString("name"));
        assertEquals(s.getJsonArray("nextRuns"), renamed.json().getJsonArray("nextRuns"), "same cron: same slots");
        for (String same : new String[] {"{}", rename}) { // a change that changes nothing keeps the version
            Reply unchanged = api.patch("schedules/" + id, owner, "\"2\"", same);
            assertEquals(200, unchanged.status(), unchanged.toString());
            assertEquals("\"2\"", unchanged.header("ETag"), same);
        }
        assertProblem(api.patch("schedules/" + id, owner, "1", rename), 412, "schedule.version_mismatch");
        Reply daily = api.patch("schedules/" + id, owner, "*", "{\"cron\":\"30 8 * * *\",\"timeZone\":\"UTC\"}");
        assertEquals(200, daily.status(), daily.toString());
        assertEquals(3, daily.json().getInt("version"));
        OffsetDateTime first = OffsetDateTime.parse(daily.json().getJsonArray("nextRuns").getJsonObject(0).getString("at"));
        assertEquals(8, first.getHour());
        assertEquals(30, first.getMinute());
        assertEquals(ZoneOffset.UTC, first.getOffset());

        Reply paused = api.post("schedules/" + id + "/pause", owner, null);
        assertEquals(200, paused.status(), paused.toString());
        assertFalse(paused.json().getBoolean("enabled"));
        assertEquals(0, paused.json().getJsonArray("nextRuns").size(), "a paused schedule has no next run");
        assertEquals(JsonValue.NULL, paused.json().get("disabledReason"), "a member's pause needs no reason");
        assertEquals("/api/v1/schedules/" + id + "/resume", paused.json().getJsonObject("links").getString("resume"));
        assertFalse(paused.json().getJsonObject("links").containsKey("pause"));
        assertEquals("\"4\"", paused.header("ETag"));
        Reply again = api.post("schedules/" + id + "/pause", owner, null);
        assertEquals(200, again.status(), again.toString());
        assertEquals(4, again.json().getInt("version"), "pausing a paused schedule changes nothing");
        assertFalse((Boolean) data.value("SELECT enabled FROM task_schedule WHERE id = ?::uuid", id));
        Reply resumed = api.post("schedules/" + id + "/resume", owner, null);
        assertEquals(200, resumed.status(), resumed.toString());
        assertTrue(resumed.json().getBoolean("enabled"));
        assertEquals(5, resumed.json().getJsonArray("nextRuns").size());
        assertTrue(Instant.parse(resumed.json().getJsonArray("nextRuns").getJsonObject(0).getString("utc"))
                .isAfter(Instant.now().minusSeconds(5)), "resumed from the next slot after now");

        // Run now: an extra occurrence (no slot), accepted as a task's create is, and run by the worker.
        Reply ran = api.post("schedules/" + id + "/run-now", owner, null);
        assertEquals(202, ran.status(), ran.toString());
        JsonObject occurrence = ran.json();
        ApiIT.assertTaskShape(occurrence);
        String taskId = occurrence.getString("id");
        assertEquals("/api/v1/tasks/" + taskId, ran.header("Location"));
        assertEquals(id, occurrence.getString("scheduleId"));
        assertEquals(JsonValue.NULL, occurrence.get("slotAt"), "run now is not a slot");
        assertEquals("/api/v1/schedules/" + id, occurrence.getJsonObject("links").getString("schedule"));
        assertEquals("TEAM", occurrence.getString("scope"));
        api.awaitStatus(taskId, owner, "COMPLETED", Duration.ofSeconds(60));
        JsonObject withOccurrence = api.get("schedules/" + id, owner).json();
        assertEquals(5, withOccurrence.getInt("version"), "run now does not change the schedule");
        JsonObject o = withOccurrence.getJsonArray("occurrences").getJsonObject(0);
        assertEquals(taskId, o.getString("taskId"));
        assertEquals("COMPLETED", o.getString("status"));
        assertEquals(JsonValue.NULL, o.get("slotAt"));
        assertEquals(JsonValue.NULL, o.get("skipped"));
        assertEquals("/api/v1/tasks/" + taskId, o.getJsonObject("links").getString("task"));
        OffsetDateTime.parse(o.getString("at"));

        Reply deleted = api.send("DELETE", api.uri("schedules/" + id), owner, null, null);
        assertEquals(204, deleted.status(), deleted.toString());
        assertEquals("", deleted.body());
        assertProblem(api.get("schedules/" + id, owner), 404, "schedule.not_found");
        assertProblem(api.send("DELETE", api.uri("schedules/" + id), owner, null, null), 404, "schedule.not_found");
        Reply kept = api.get("tasks/" + taskId, owner);
        assertEquals(200, kept.status(), "its occurrences stay as tasks: " + kept);
        assertEquals(JsonValue.NULL, kept.json().get("scheduleId"), "no longer linked");
        assertFalse(kept.json().getJsonObject("links").containsKey("schedule"));
    }

    @Test
    void theNextFiveRunsOfAWeeklyScheduleInItsZoneAndInUtc() {
        Reply created = api.post(schedules(), Tokens.of(t.staff()), "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"Asia/Shanghai\","
                + "\"task\":{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}}");
        assertEquals(201, created.status(), created.toString());
        assertEquals("EXPORT 0 9 * * MON", created.json().getString("name"), "a name by default");
        JsonArray runs = created.json().getJsonArray("nextRuns");
        assertEquals(5, runs.size(), runs.toString());
        Instant previous = Instant.now();
        for (int i = 0; i < runs.size(); i++) {
            JsonObject run = runs.getJsonObject(i);
            String at = run.getString("at");
            String utc = run.getString("utc");
            OffsetDateTime local = OffsetDateTime.parse(at);
            assertTrue(at.endsWith("T09:00:00+08:00"), "Monday 09:00 in Shanghai's offset: " + at);
            assertEquals(DayOfWeek.MONDAY, local.getDayOfWeek(), at);
            assertTrue(utc.endsWith("T01:00:00Z"), "the same instant in UTC: " + utc);
            assertEquals(local.toInstant(), Instant.parse(utc), at + " = " + utc);
            Duration gap = Duration.between(previous, local.toInstant());
            assertTrue(i == 0 ? !gap.isNegative() && gap.compareTo(Duration.ofDays(7)) <= 0 : gap.equals(Duration.ofDays(7)),
                    "weekly, from the next Monday on: " + runs);
            previous = local.toInstant();
        }
    }

    @Test
    void anIdempotencyKeyCreatesOneScheduleAndReplaysIt() {
        String owner = Tokens.of(t.owner());
        List<String> key = List.of("Idempotency-Key", "weekly-" + UUID.randomUUID());
        Reply first = api.send("POST", api.uri(schedules()), owner, WEEKLY_EXPORT, key);
        assertEquals(201, first.status(), first.toString());
        assertNull(first.header("Idempotent-Replayed"));
        // the same JSON with other whitespace is the same request
        Reply replay = api.send("POST", api.uri(schedules()), owner, WEEKLY_EXPORT.replace(",", " ,\n "), key);
        assertEquals(201, replay.status(), "the original answer's status (R25): " + replay);
        assertEquals("true", replay.header("Idempotent-Replayed"));
        assertEquals(first.header("Location"), replay.header("Location"));
        assertEquals(first.json().getString("id"), replay.json().getString("id"));
        assertEquals(1L, data.count("SELECT count(*) FROM task_schedule WHERE team_id = ?", t.id()));
        assertProblem(api.send("POST", api.uri(schedules()), owner, WEEKLY_EXPORT.replace("Weekly", "Other"), key), 422,
                "idempotency.key_reused");
        assertProblem(api.send("POST", api.uri(schedules()), owner, WEEKLY_EXPORT, List.of("Idempotency-Key", "k".repeat(256))), 400,
                "idempotency.key_invalid");
        assertEquals(1L, data.count("SELECT count(*) FROM task_schedule WHERE team_id = ?", t.id()));
    }

    @Test
    void everyBadInputIsRefusedWithACodeAndNothingIsStored() {
        String owner = Tokens.of(t.owner());
        String export = "\"task\":{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}";
        String weekly = "\"cron\":\"0 9 * * MON\",\"timeZone\":\"UTC\",";
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("{\"cron\":\"every monday\",\"timeZone\":\"UTC\"," + export + "}", "400 schedule.cron_invalid");
        bad.put("{\"cron\":\"61 * * * *\",\"timeZone\":\"UTC\"," + export + "}", "400 schedule.cron_invalid");
        bad.put("{\"cron\":\"0 9 30 2 *\",\"timeZone\":\"UTC\"," + export + "}", "400 schedule.cron_invalid");
        bad.put("{\"timeZone\":\"UTC\"," + export + "}", "400 schedule.cron_invalid");
        bad.put("{\"cron\":\"0 9 * * MON\",\"timeZone\":\"Mars/Olympus\"," + export + "}", "400 schedule.zone_invalid");
        bad.put("{\"cron\":\"0 9 * * MON\",\"timeZone\":\"../../etc/passwd\"," + export + "}", "400 schedule.zone_invalid");
        bad.put("{\"cron\":\"0 9 * * MON\"," + export + "}", "400 schedule.zone_invalid");
        bad.put("{\"cron\":\"*/10 * * * * *\",\"timeZone\":\"UTC\"," + export + "}", "422 schedule.too_frequent");
        bad.put("{\"cron\":\"0 0 9 * * MON 2030\",\"timeZone\":\"UTC\"," + export + "}", "422 schedule.too_frequent");
        bad.put("{" + weekly + "\"task\":{\"kind\":\"EXPORT\",\"runAt\":\"2030-01-01T09:00:00Z\"}}", "400 schedule.invalid");
        bad.put("{" + weekly + export + ",\"colour\":\"blue\"}", "400 schedule.invalid");
        bad.put("{" + weekly + "\"task\":{\"kind\":\"EXPORT\",\"scop\":\"TEAM\"}}", "400 schedule.invalid");
        bad.put("{" + weekly + "\"task\":\"EXPORT\"}", "400 schedule.invalid");
        bad.put("{\"cron\":\"0 9 * * MON\",\"timeZone\":\"UTC\"}", "400 schedule.invalid");
        bad.put("{" + weekly + export + ",\"name\":\"" + "n".repeat(201) + "\"}", "400 schedule.invalid");
        bad.put("{" + weekly + export + ",\"name\":\"a\\u0007b\"}", "400 schedule.invalid");
        bad.put("{" + weekly + export + ",\"enabled\":\"yes\"}", "400 schedule.invalid");
        bad.put("{" + weekly + export + ",\"missedSlots\":\"ALL\"}", "400 schedule.invalid");
        bad.put("{" + weekly + export + ",\"overlap\":\"PARALLEL\"}", "400 schedule.invalid");
        bad.put("{\"cron\":5,\"timeZone\":\"UTC\"," + export + "}", "400 schedule.invalid");
        bad.put("{" + weekly + "\"task\":{\"kind\":\"IMPORT\"}}", "400 task.invalid");
        bad.put("{" + weekly + "\"task\":{\"kind\":\"EXPORT\",\"filters\":{\"status\":[\"LOST\"]}}}", "400 filters.invalid");
        bad.put("{" + weekly + "\"task\":{\"kind\":\"REMINDER\",\"ticketId\":\"" + UUID.randomUUID()
                + "\",\"message\":\"m\"}}", "404 ticket.not_found");
        bad.put("{" + weekly + "\"task\":{\"kind\":[\"EXPORT\"]}}", "400 request.malformed");
        bad.put("{" + weekly + export + ",\"name\":\"a\\u0000b\"}", "400 request.malformed");
        bad.put("{\"cron\":\"0 9 * * MON\"", "400 request.malformed");
        bad.put("[" + WEEKLY_EXPORT + "]", "400 request.malformed");
        bad.put("", "400 request.malformed");
        bad.forEach((body, expected) -> {
            String[] e = expected.split(" ");
            assertProblem(api.post(schedules(), owner, body), Integer.parseInt(e[0]), e[1]);
            assertEquals(0L, data.count("SELECT count(*) FROM task_schedule WHERE team_id = ?", t.id()),
                    "nothing stored for " + body);
        });
        assertProblem(api.send("POST", api.uri(schedules()), owner, null, List.of("Content-Type", "text/plain")), 415,
                "request.unsupported_media_type");
        RawHttp.Answer huge = RawHttp.send(api.root(), "POST", "/api/v1/" + schedules(), new byte[1_100_000],
                "Authorization: Bearer " + owner, "Content-Type: application/json");
        assertEquals(413, huge.status(), huge.text());
        assertTrue(huge.header("Content-Type").startsWith("application/problem+json"), huge.text());
        assertProblem(api.post(schedules(), Tokens.of(t.customer()), WEEKLY_EXPORT), 403, "task.scope_forbidden");
        assertEquals(0L, data.count("SELECT count(*) FROM task_schedule WHERE team_id = ?", t.id()));

        // A change is validated the same way and leaves the schedule as it was.
        String id = api.post(schedules(), owner, WEEKLY_EXPORT).json().getString("id");
        for (String body : List.of("{\"cron\":\"* * * * * *\"}", "{\"timeZone\":\"Nowhere/City\"}", "{\"cron\":\"0 25 * * *\"}",
                "{\"task\":{\"kind\":\"EXPORT\",\"runAt\":\"2030-01-01T09:00:00Z\"}}", "{\"paused\":true}", "{\"id\":\"x\"}",
                "{\"version\":9}", "not json")) {
            Reply r = api.patch("schedules/" + id, owner, "*", body);
            assertTrue(r.status() == 400 || r.status() == 422, body + " -> " + r);
            assertProblem(r, r.status(), null);
            assertEquals(1L, data.count("SELECT version FROM task_schedule WHERE id = ?::uuid", id), "unchanged by " + body);
        }
        assertEquals("0 9 * * MON", data.value("SELECT cron FROM task_schedule WHERE id = ?::uuid", id));

        assertProblem(api.get(schedules() + "?limit=0", owner), 400, "page.limit");
        assertProblem(api.get(schedules() + "?limit=x", owner), 400, "page.limit");
        assertProblem(api.get(schedules() + "?cursor=nope", owner), 400, "page.cursor");
        assertProblem(api.get("schedules/not-an-id", owner), 404, "schedule.not_found");
        assertProblem(api.post("schedules/" + UUID.randomUUID() + "/run-now", owner, null), 404, "schedule.not_found");
        assertProblem(api.post("teams/nope/schedules", owner, WEEKLY_EXPORT), 404, "team.not_found");
    }

    /**
     * Issue 49: a cron expression holds ASCII digits, names and crontab(5)'s separators only (on create and on
     * change); SUN starts a day range as 0; a change that repeats the stored task body keeps the version.
     */
    @Test
    void cronIsAsciiSundayStartsARangeAndARepeatedTaskBodyKeepsTheVersion() {
        String owner = Tokens.of(t.owner());
        String self = "\"task\":{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}";
        for (String cron : new String[] {"\\u0660 9 * * *", "\\uff10 9 * * *", "0 9 * * MON\\u2028", "0 9 * * MON\\u00a0",
                "0 \\u0669 * * *"}) {
            assertProblem(api.post(schedules(), owner, "{\"cron\":\"" + cron + "\",\"timeZone\":\"UTC\"," + self + "}"), 400,
                    "schedule.cron_invalid");
        }
        assertEquals(0L, data.count("SELECT count(*) FROM task_schedule WHERE team_id = ?", t.id()));
        for (String cron : new String[] {"0 9 * * SUN-SAT", "0 9 * * SUN-MON"}) {
            Reply r = api.post(schedules(), owner, "{\"cron\":\"" + cron + "\",\"timeZone\":\"UTC\"," + self + "}");
            assertEquals(201, r.status(), cron + " -> " + r);
            assertEquals(cron, r.json().getString("cron"), "stored as sent");
            assertEquals(204, api.send("DELETE", api.uri("schedules/" + r.json().getString("id")), owner, null, null)
                    .status(), "the team may have " + MAX_PER_TEAM + " schedules");
        }
        String id = api.post(schedules(), owner, "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"UTC\"," + self + "}").json()
                .getString("id");
        for (String cron : new String[] {"\\u0660 9 * * *", "\\uff10 9 * * *", "0 9 * * MON\\u2028"}) {
            assertProblem(api.patch("schedules/" + id, owner, "\"1\"", "{\"cron\":\"" + cron + "\"}"), 400,
                    "schedule.cron_invalid");
        }
        assertEquals("0 9 * * MON", data.value("SELECT cron FROM task_schedule WHERE id = ?::uuid", id));

        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Repeated body");
        String reminder = "\"task\":{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"Still open?\"}";
        String rid = api.post(schedules(), Tokens.of(t.owner()), "{\"cron\":\"@daily\",\"timeZone\":\"UTC\","
                + reminder + "}").json().getString("id");
        Map<String, String> same = Map.of(id, "{" + self + "}", rid, "{" + reminder + "}");
        same.forEach((schedule, body) -> {
            Reply r = api.patch("schedules/" + schedule, owner, "\"1\"", body);
            assertEquals(200, r.status(), r.toString());
            assertEquals("\"1\"", r.header("ETag"), "a repeated task body changes nothing: " + body);
            assertEquals(1L, data.count("SELECT version FROM task_schedule WHERE id = ?::uuid", schedule));
        });
        Reply changed = api.patch("schedules/" + id, owner, "\"1\"", "{\"task\":{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}}");
        assertEquals("\"2\"", changed.header("ETag"), "another body is a change: " + changed);
    }

    @Test
    void aTeamHasAtMostItsLimitOfSchedules() {
        String owner = Tokens.of(t.owner());
        for (int i = 0; i < MAX_PER_TEAM; i++) {
            assertEquals(201, api.post(schedules(), owner, WEEKLY_EXPORT).status());
        }
        assertProblem(api.post(schedules(), owner, WEEKLY_EXPORT), 422, "schedule.too_many");
        assertEquals((long) MAX_PER_TEAM, data.count("SELECT count(*) FROM task_schedule WHERE team_id = ?", t.id()));
        // another team is not counted
        assertEquals(201, api.post("teams/" + t.otherTeam() + "/schedules", Tokens.of(t.outsider()), WEEKLY_EXPORT).status());
    }

    @Test
    void staffSeeTheTeamsSchedulesACustomerOnlyTheirOwnInPages() {
        String customer = Tokens.of(t.customer());
        String staff = Tokens.of(t.staff());
        String customers = api.post(schedules(), customer, "{\"cron\":\"@daily\",\"timeZone\":\"Europe/Berlin\","
                + "\"task\":{\"kind\":\"EXPORT\"}}").json().getString("id");
        String staffs = api.post(schedules(), staff, WEEKLY_EXPORT).json().getString("id");
        String reminders = api.post(schedules(), staff, "{\"cron\":\"0 8 * * 1-5\",\"timeZone\":\"UTC\","
                + "\"task\":{\"kind\":\"DIGEST\",\"scope\":\"TEAM\"}}").json().getString("id");
        assertEquals("SELF", api.get("schedules/" + customers, customer).json().getJsonObject("task").getString("scope"),
                "a customer's export is SELF by default");

        List<String> pages = new ArrayList<>();
        String cursor = null;
        int n = 0;
        do {
            Reply page = api.get(schedules() + "?limit=2" + (cursor == null ? "" : "&cursor=" + cursor), staff);
            pages.addAll(ids(page));
            JsonValue next = page.json().get("nextCursor");
            cursor = next.getValueType() == JsonValue.ValueType.NULL ? null : page.json().getString("nextCursor");
            n++;
        } while (cursor != null && n < 5);
        assertEquals(List.of(reminders, staffs, customers), pages, "newest first, every one once");
        assertEquals(2, n);
        assertEquals(List.of(customers), ids(api.get(schedules(), customer)), "a customer sees only their own");
        assertProblem(api.get("schedules/" + staffs, customer), 404, "schedule.not_found");

        // Staff change a customer's schedule; it stays the customer's, SELF.
        Reply changed = api.patch("schedules/" + customers, staff, "\"1\"", "{\"name\":\"Renamed by staff\"}");
        assertEquals(200, changed.status(), changed.toString());
        assertEquals(t.customer().toString(), changed.json().getString("ownerId"));
        assertEquals(t.staff().toString(), changed.json().getString("updatedBy"));
        assertEquals("SELF", changed.json().getJsonObject("task").getString("scope"));
        assertProblem(api.get(schedules(), Tokens.of(t.outsider())), 404, "team.not_found");
    }

    @Test
    void closingATicketDisablesItsReminderScheduleWithASystemEvent() {
        String owner = Tokens.of(t.owner());
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Weekly nudge");
        Reply created = api.post(schedules(), owner, "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"Asia/Shanghai\",\"task\":"
                + "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"Still open?\",\"recipients\":\"ASSIGNEE\"}}");
        assertEquals(201, created.status(), created.toString());
        String id = created.json().getString("id");
        assertEquals(ticket.toString(), created.json().getJsonObject("task").getJsonObject("filters").getString("ticketId"));
        String export = api.post(schedules(), owner, WEEKLY_EXPORT).json().getString("id");

        Reply closed = api.patch("teams/" + t.id() + "/tickets/" + ticket, owner, "\"1\"", "{\"status\":\"CLOSED\"}");
        assertEquals(200, closed.status(), closed.toString());

        Reply after = api.get("schedules/" + id, owner);
        assertFalse(after.json().getBoolean("enabled"), after.toString());
        assertEquals("Its ticket was closed.", after.json().getString("disabledReason"));
        assertEquals(0, after.json().getJsonArray("nextRuns").size());
        assertEquals(2, after.json().getInt("version"));
        assertTrue(api.get("schedules/" + export, owner).json().getBoolean("enabled"), "another schedule is untouched");
        JsonArray events = api.get("teams/" + t.id() + "/events?ticketId=" + ticket, owner).json().getJsonArray("items");
        List<JsonObject> disabled = events.stream().map(JsonValue::asJsonObject)
                .filter(e -> e.getString("kind").equals("schedule.disabled")).toList();
        assertEquals(1, disabled.size(), events.toString());
        assertEquals(id, disabled.get(0).getJsonObject("payload").getString("scheduleId"));
        assertEquals("Its ticket was closed.", disabled.get(0).getJsonObject("payload").getString("reason"));
        assertEquals(t.owner().toString(), disabled.get(0).getString("actorId"));

        // resuming while the ticket is closed is refused and changes nothing; once it is open again it resumes
        assertProblem(api.post("schedules/" + id + "/resume", owner, null), 409, "reminder.ticket_closed");
        assertProblem(api.patch("schedules/" + id, owner, "\"2\"", "{\"enabled\":true}"), 409,
                "reminder.ticket_closed");
        assertEquals(2, api.get("schedules/" + id, owner).json().getInt("version"), "nothing stored");
        // issue 49: run now is refused as resume is, instead of a task that fails with "the ticket is closed"
        long tasks = data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id());
        assertProblem(api.post("schedules/" + id + "/run-now", owner, null), 409, "reminder.ticket_closed");
        assertEquals(tasks, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()), "no task");
        Reply reopened = api.patch("teams/" + t.id() + "/tickets/" + ticket, owner, "\"2\"", "{\"status\":\"OPEN\"}");
        assertEquals(200, reopened.status(), reopened.toString());
        Reply resumed = api.post("schedules/" + id + "/resume", owner, null);
        assertEquals(200, resumed.status(), resumed.toString());
        assertTrue(resumed.json().getBoolean("enabled"));
        assertEquals(JsonValue.NULL, resumed.json().get("disabledReason"));
    }

    @Test
    void anOperatorSeesEverySchedulePicksTheDueOnesAndPausesOne() {
        String operator = Tokens.with(data.user("ops-" + t.id().toString().substring(0, 8)), Json.createObjectBuilder()
                .add("groups", Json.createArrayBuilder().add("member").add("operator")));
        String owner = Tokens.of(t.owner());
        String due = api.post(schedules(), owner, WEEKLY_EXPORT).json().getString("id");
        String later = api.post(schedules(), owner, WEEKLY_EXPORT).json().getString("id");
        // a slot that passed while no sweep ran (the timers are off in this deployment)
        data.exec("UPDATE task_schedule SET next_slot_at = now() - interval '3 minutes' WHERE id = ?::uuid", due);

        List<String> dueIds = ids(api.get("admin/schedules?due=true&limit=500", operator));
        assertTrue(dueIds.contains(due), dueIds.toString());
        assertFalse(dueIds.contains(later), dueIds.toString());
        List<String> all = ids(api.get("admin/schedules?limit=500", operator));
        assertTrue(all.contains(due) && all.contains(later), all.toString());
        assertProblem(api.get("admin/schedules?due=maybe", operator), 400, "schedule.invalid");
        assertProblem(api.get("admin/schedules?limit=0", operator), 400, "page.limit");

        Reply paused = api.post("admin/schedules/" + due + "/pause", operator, null);
        assertEquals(200, paused.status(), paused.toString());
        assertFalse(paused.json().getBoolean("enabled"));
        assertEquals("Paused by an operator.", paused.json().getString("disabledReason"));
        assertFalse(ids(api.get("admin/schedules?due=true&limit=500", operator)).contains(due));
        assertEquals(1L, data.count("SELECT count(*) FROM system_event WHERE team_id = ? AND kind = 'admin.schedule.paused'"
                + " AND payload ->> 'scheduleId' = ?", t.id(), due));
        assertProblem(api.post("admin/schedules/" + UUID.randomUUID() + "/pause", operator, null), 404, "schedule.not_found");
        assertProblem(api.post("admin/schedules/" + later + "/pause", owner, null), 403, "auth.forbidden");

        // the member resumes it: the reason goes, the next slot is after now
        Reply resumed = api.post("schedules/" + due + "/resume", owner, null);
        assertEquals(200, resumed.status(), resumed.toString());
        assertEquals(JsonValue.NULL, resumed.json().get("disabledReason"));
        assertNotEquals(0, resumed.json().getJsonArray("nextRuns").size());
    }

    private String schedules() {
        return "teams/" + t.id() + "/schedules";
    }

    private static List<String> ids(Reply page) {
        assertEquals(200, page.status(), page.toString());
        List<String> ids = new ArrayList<>();
        page.json().getJsonArray("items").forEach(v -> ids.add(v.asJsonObject().getString("id")));
        return ids;
    }
}
