package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.Json;
import java.net.URL;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Every endpoint × every kind of caller → the status and problem code API.md promises. A
 * non-member gets 404 for every team resource (never 403: a team's existence is not revealed); a
 * member without the role or scope gets 403; a customer sees only tickets they requested or are
 * assigned to and only their own tasks and schedules (others: 404); no token, an expired token or one signed by
 * an untrusted key: 401; a valid token without the {@code member} group: 403. The operator API answers 403 to
 * every member, whatever their role, and its schedule rows (issue 31) are asked of an operator too.
 *
 * <p>Worker and timers are off on its server, so every task stays exactly as the fixture
 * wrote it. Each row names its endpoint, caller and expectation; rows that change a ticket or a
 * schedule get a fresh one.
 */
@Execution(ExecutionMode.SAME_THREAD)
class AuthorizationMatrixIT {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.apiOnly();

    /** Who calls. */
    enum Caller {
        OWNER, STAFF, CUSTOMER, NON_MEMBER, NO_TOKEN, EXPIRED_TOKEN, FOREIGN_KEY_TOKEN, NO_MEMBER_GROUP,
        /** a user of no team whose token has the {@code operator} group: only the operator rows ask it */
        OPERATOR
    }

    /** An expected answer: status and, for errors, the problem code. */
    record Expect(int status, String code) {
        static Expect ok(int status) {
            return new Expect(status, null);
        }

        @Override
        public String toString() {
            return status + (code == null ? "" : " " + code);
        }
    }

    /** One endpoint with the answer each member role gets; token failures are added for all. */
    record Endpoint(String name, Function<String, Reply> call, Map<Caller, Expect> expected) {
    }

    final URL url = SERVER.url();

    final TestData data = TestData.fromEnvironment();

    @TestFactory
    Stream<DynamicTest> everyEndpointForEveryCaller() {
        Api api = Api.at(url);
        TestTeam t = data.newTeam();
        String team = "teams/" + t.id();
        UUID customersTicket = data.ticket(t.id(), t.customer(), t.staff(), "Customer's ticket");
        UUID othersTicket = data.ticket(t.id(), t.owner(), t.staff(), "Owner's ticket");
        // A customer may still be the assignee (e.g. demoted from staff): they see that ticket too.
        UUID assignedToCustomer = data.ticket(t.id(), t.owner(), t.customer(), "Assigned to the customer");
        UUID ownersExport = data.completedExport(t.id(), t.owner(), "TEAM");
        UUID customersExport = data.completedExport(t.id(), t.customer(), "SELF");
        UUID ownersWaiting = data.task(t.id(), t.owner(), "EXPORT", "TEAM", "WAITING", "{\"timeZone\":\"UTC\"}", null);
        UUID customersWaiting = data.task(t.id(), t.customer(), "EXPORT", "SELF", "WAITING", "{\"timeZone\":\"UTC\"}", null);

        Map<Caller, String> tokens = new EnumMap<>(Caller.class);
        tokens.put(Caller.OWNER, Tokens.of(t.owner()));
        tokens.put(Caller.STAFF, Tokens.of(t.staff()));
        tokens.put(Caller.CUSTOMER, Tokens.of(t.customer()));
        tokens.put(Caller.NON_MEMBER, Tokens.of(t.outsider()));
        tokens.put(Caller.NO_TOKEN, null);
        tokens.put(Caller.EXPIRED_TOKEN, Tokens.expired(t.owner()));
        tokens.put(Caller.FOREIGN_KEY_TOKEN, Tokens.foreign(t.owner()));
        tokens.put(Caller.NO_MEMBER_GROUP, Tokens.with(t.owner(),
                Json.createObjectBuilder().add("groups", Json.createArrayBuilder().add("visitor"))));
        tokens.put(Caller.OPERATOR, Tokens.with(data.user("ops-" + t.id().toString().substring(0, 8)),
                Json.createObjectBuilder().add("groups", Json.createArrayBuilder().add("member").add("operator"))));

        Expect teamNotFound = new Expect(404, "team.not_found");
        Expect ticketNotFound = new Expect(404, "ticket.not_found");
        Expect taskNotFound = new Expect(404, "task.not_found");
        Expect notFailed = new Expect(409, "task.not_failed");
        Expect notCancellable = new Expect(409, "task.not_cancellable");
        String waitingExport = "{\"timeZone\":\"UTC\"}";
        String exportSelf = "{\"kind\":\"EXPORT\",\"scope\":\"SELF\",\"filters\":{\"status\":[\"OPEN\"]}}";
        String exportTeam = "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}";
        // issue 31: schedules, authorized as tasks (a customer: SELF only, their own; others' answer 404)
        Expect scheduleNotFound = new Expect(404, "schedule.not_found");
        String scheduleSelf = "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"Asia/Shanghai\",\"task\":" + exportSelf + "}";
        String scheduleTeam = "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"Asia/Shanghai\",\"task\":" + exportTeam + "}";
        String selfParams = "{\"timeZone\":\"UTC\"}";
        UUID ownersSchedule = data.schedule(t.id(), t.owner(), "EXPORT", "TEAM", selfParams, true);
        UUID customersSchedule = data.schedule(t.id(), t.customer(), "EXPORT", "SELF", selfParams, true);
        Function<Boolean, UUID> ownersFresh = enabled -> data.schedule(t.id(), t.owner(), "EXPORT", "TEAM", selfParams, enabled);
        Function<Boolean, UUID> customersFresh = enabled -> data.schedule(t.id(), t.customer(), "EXPORT", "SELF", selfParams,
                enabled);

        List<Endpoint> endpoints = List.of(
                endpoint("POST tickets", tok -> api.post(team + "/tickets", tok, "{\"title\":\"Matrix\"}"),
                        Expect.ok(201), Expect.ok(201), Expect.ok(201), teamNotFound),
                endpoint("GET tickets", tok -> api.get(team + "/tickets", tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), teamNotFound),
                endpoint("GET ticket requested by the customer", tok -> api.get(team + "/tickets/" + customersTicket, tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), teamNotFound),
                endpoint("GET ticket assigned to the customer", tok -> api.get(team + "/tickets/" + assignedToCustomer, tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), teamNotFound),
                endpoint("GET ticket of someone else", tok -> api.get(team + "/tickets/" + othersTicket, tok),
                        Expect.ok(200), Expect.ok(200), ticketNotFound, teamNotFound),
                endpoint("PATCH ticket requested by the customer", tok -> api.patch(team + "/tickets/"
                        + data.ticket(t.id(), t.customer(), t.staff(), "Patch me"), tok, "\"1\"", "{\"status\":\"PENDING\"}"),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), teamNotFound),
                endpoint("PATCH ticket of someone else", tok -> api.patch(team + "/tickets/"
                        + data.ticket(t.id(), t.owner(), t.staff(), "Patch me"), tok, "\"1\"", "{\"status\":\"PENDING\"}"),
                        Expect.ok(200), Expect.ok(200), ticketNotFound, teamNotFound),
                endpoint("POST tasks: SELF export", tok -> api.post(team + "/tasks", tok, exportSelf),
                        Expect.ok(202), Expect.ok(202), Expect.ok(202), teamNotFound),
                endpoint("POST tasks: TEAM export", tok -> api.post(team + "/tasks", tok, exportTeam),
                        Expect.ok(202), Expect.ok(202), new Expect(403, "task.scope_forbidden"), teamNotFound),
                endpoint("POST tasks: reminder about the customer's ticket", tok -> api.post(team + "/tasks", tok,
                        "{\"kind\":\"REMINDER\",\"ticketId\":\"" + customersTicket + "\",\"message\":\"Ping\"}"),
                        Expect.ok(202), Expect.ok(202), Expect.ok(202), teamNotFound),
                endpoint("POST tasks: reminder about someone else's ticket", tok -> api.post(team + "/tasks", tok,
                        "{\"kind\":\"REMINDER\",\"ticketId\":\"" + othersTicket + "\",\"message\":\"Ping\"}"),
                        Expect.ok(202), Expect.ok(202), ticketNotFound, teamNotFound),
                endpoint("GET team tasks", tok -> api.get(team + "/tasks", tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), teamNotFound),
                endpoint("GET task of the owner", tok -> api.get("tasks/" + ownersExport, tok),
                        Expect.ok(200), Expect.ok(200), taskNotFound, taskNotFound),
                endpoint("GET task of the customer", tok -> api.get("tasks/" + customersExport, tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), taskNotFound),
                endpoint("POST retry of the owner's non-failed task", tok -> api.post("tasks/" + ownersWaiting + "/retry", tok, null),
                        notFailed, notFailed, taskNotFound, taskNotFound),
                endpoint("POST retry of the customer's non-failed task",
                        tok -> api.post("tasks/" + customersWaiting + "/retry", tok, null),
                        notFailed, notFailed, notFailed, taskNotFound),
                endpoint("POST cancel of the owner's waiting task", tok -> api.post("tasks/"
                        + data.task(t.id(), t.owner(), "EXPORT", "TEAM", "WAITING", waitingExport, null) + "/cancel", tok, null),
                        Expect.ok(200), Expect.ok(200), taskNotFound, taskNotFound),
                endpoint("POST cancel of the customer's waiting task", tok -> api.post("tasks/"
                        + data.task(t.id(), t.customer(), "EXPORT", "SELF", "WAITING", waitingExport, null) + "/cancel", tok, null),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), taskNotFound),
                endpoint("POST cancel of the owner's completed export", tok -> api.post("tasks/" + ownersExport + "/cancel",
                        tok, null), notCancellable, notCancellable, taskNotFound, taskNotFound),
                endpoint("POST cancel of the customer's completed export", tok -> api.post("tasks/" + customersExport
                        + "/cancel", tok, null), notCancellable, notCancellable, notCancellable, taskNotFound),
                endpoint("GET result of the owner's TEAM export", tok -> api.get("tasks/" + ownersExport + "/result", tok),
                        Expect.ok(200), Expect.ok(200), taskNotFound, taskNotFound),
                endpoint("GET result of the customer's SELF export", tok -> api.get("tasks/" + customersExport + "/result", tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), taskNotFound),
                endpoint("GET executions of the owner's task (R43)", tok -> api.get("tasks/" + ownersExport + "/executions", tok),
                        Expect.ok(200), Expect.ok(200), taskNotFound, taskNotFound),
                endpoint("GET executions of the customer's task (R43)",
                        tok -> api.get("tasks/" + customersExport + "/executions", tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), taskNotFound),
                endpoint("GET actions of the owner's task (issue 32)", tok -> api.get("tasks/" + ownersExport + "/actions",
                        tok), Expect.ok(200), Expect.ok(200), taskNotFound, taskNotFound),
                endpoint("GET actions of the customer's task (issue 32)",
                        tok -> api.get("tasks/" + customersExport + "/actions", tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), taskNotFound),
                endpoint("GET me", tok -> api.get("me", tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), Expect.ok(200)),
                endpoint("GET me/notifications", tok -> api.get("me/notifications", tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), Expect.ok(200)),
                endpoint("GET events", tok -> api.get(team + "/events", tok),
                        Expect.ok(200), Expect.ok(200), new Expect(403, "team.staff_only"), teamNotFound),
                endpoint("GET events of a ticket", tok -> api.get(team + "/events?ticketId=" + customersTicket, tok),
                        Expect.ok(200), Expect.ok(200), new Expect(403, "team.staff_only"), teamNotFound),
                endpoint("POST schedules: SELF export", tok -> api.post(team + "/schedules", tok, scheduleSelf),
                        Expect.ok(201), Expect.ok(201), Expect.ok(201), teamNotFound),
                endpoint("POST schedules: TEAM export", tok -> api.post(team + "/schedules", tok, scheduleTeam),
                        Expect.ok(201), Expect.ok(201), new Expect(403, "task.scope_forbidden"), teamNotFound),
                endpoint("GET team schedules", tok -> api.get(team + "/schedules", tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), teamNotFound),
                endpoint("GET schedule of the owner", tok -> api.get("schedules/" + ownersSchedule, tok),
                        Expect.ok(200), Expect.ok(200), scheduleNotFound, scheduleNotFound),
                endpoint("GET schedule of the customer", tok -> api.get("schedules/" + customersSchedule, tok),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), scheduleNotFound),
                endpoint("PATCH schedule of the owner", tok -> api.patch("schedules/" + ownersFresh.apply(true), tok, "\"1\"",
                        "{\"name\":\"Matrix\"}"), Expect.ok(200), Expect.ok(200), scheduleNotFound, scheduleNotFound),
                endpoint("PATCH schedule of the customer", tok -> api.patch("schedules/" + customersFresh.apply(true), tok,
                        "\"1\"", "{\"name\":\"Matrix\"}"), Expect.ok(200), Expect.ok(200), Expect.ok(200), scheduleNotFound),
                endpoint("POST pause of the owner's schedule", tok -> api.post("schedules/" + ownersFresh.apply(true)
                        + "/pause", tok, null), Expect.ok(200), Expect.ok(200), scheduleNotFound, scheduleNotFound),
                endpoint("POST resume of the customer's paused schedule", tok -> api.post("schedules/"
                        + customersFresh.apply(false) + "/resume", tok, null),
                        Expect.ok(200), Expect.ok(200), Expect.ok(200), scheduleNotFound),
                endpoint("POST run-now of the owner's schedule", tok -> api.post("schedules/" + ownersSchedule + "/run-now",
                        tok, null), Expect.ok(202), Expect.ok(202), scheduleNotFound, scheduleNotFound),
                endpoint("POST run-now of the customer's schedule", tok -> api.post("schedules/" + customersSchedule
                        + "/run-now", tok, null), Expect.ok(202), Expect.ok(202), Expect.ok(202), scheduleNotFound),
                endpoint("DELETE schedule of the owner", tok -> api.send("DELETE", api.uri("schedules/"
                        + ownersFresh.apply(true)), tok, null, null),
                        Expect.ok(204), Expect.ok(204), scheduleNotFound, scheduleNotFound),
                endpoint("DELETE schedule of the customer", tok -> api.send("DELETE", api.uri("schedules/"
                        + customersFresh.apply(true)), tok, null, null),
                        Expect.ok(204), Expect.ok(204), Expect.ok(204), scheduleNotFound),
                operatorEndpoint("GET admin executions (R44)", tok -> api.get("admin/executions?outcome=STALLED", tok),
                        Expect.ok(200)),
                operatorEndpoint("GET admin executions summary (R44)", tok -> api.get("admin/executions/summary", tok),
                        Expect.ok(200)),
                operatorEndpoint("GET admin schedules", tok -> api.get("admin/schedules?due=true", tok), Expect.ok(200)),
                operatorEndpoint("POST admin pause of a schedule", tok -> api.post("admin/schedules/"
                        + customersFresh.apply(true) + "/pause", tok, null), Expect.ok(200)));

        List<DynamicTest> rows = new ArrayList<>();
        for (Endpoint e : endpoints) {
            for (Caller c : Caller.values()) {
                Expect expect = e.expected().get(c);
                if (expect == null) {
                    continue; // the operator is asked only of the operator API
                }
                String row = e.name() + " × " + c + " → " + expect;
                rows.add(DynamicTest.dynamicTest(row, () -> check(row, e.call().apply(tokens.get(c)), expect)));
            }
        }
        return rows.stream();
    }

    private static Endpoint endpoint(String name, Function<String, Reply> call, Expect owner, Expect staff,
            Expect customer, Expect nonMember) {
        Map<Caller, Expect> m = new EnumMap<>(Caller.class);
        m.put(Caller.OWNER, owner);
        m.put(Caller.STAFF, staff);
        m.put(Caller.CUSTOMER, customer);
        m.put(Caller.NON_MEMBER, nonMember);
        Expect unauthenticated = new Expect(401, "auth.required");
        m.put(Caller.NO_TOKEN, unauthenticated);
        m.put(Caller.EXPIRED_TOKEN, unauthenticated);
        m.put(Caller.FOREIGN_KEY_TOKEN, unauthenticated);
        m.put(Caller.NO_MEMBER_GROUP, new Expect(403, "auth.forbidden"));
        return new Endpoint(name, call, m);
    }

    /** An operator endpoint (issue 31's schedules): 403 for every member, whatever their role, 401 without a token. */
    private static Endpoint operatorEndpoint(String name, Function<String, Reply> call, Expect operator) {
        Expect forbidden = new Expect(403, "auth.forbidden");
        Endpoint e = endpoint(name, call, forbidden, forbidden, forbidden, forbidden);
        e.expected().put(Caller.OPERATOR, operator);
        return e;
    }

    private static void check(String row, Reply r, Expect expect) {
        assertEquals(expect.status(), r.status(), row + ": " + r);
        if (expect.code() == null) {
            assertFalse(r.problemCode().isPresent(), row + ": a success is not a problem: " + r);
        } else {
            assertEquals(expect.code(), r.problemCode().orElse(null), row + ": problem code: " + r);
        }
        if (expect.status() == 401) {
            String challenge = r.header("WWW-Authenticate");
            assertTrue(challenge != null && challenge.startsWith("Bearer"), row + ": 401 names the Bearer scheme: " + r);
        }
    }
}
