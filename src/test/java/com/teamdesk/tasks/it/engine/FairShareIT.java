package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.Sweeps;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.queue.GroupInfo;
import com.teamdesk.tasks.queue.JobRecord;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.task.export.ExportPausePoint;
import com.teamdesk.tasks.task.fairshare.TeamQueueLimits;
import com.teamdesk.tasks.task.reminder.ReminderPausePoint;
import com.teamdesk.tasks.task.service.TaskRuns;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.web.TaskJson;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.URL;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 30 on the production path: the deployed {@code TaskWorker}'s slots, on its own threads, take the
 * waiting runs of the teams in turn, and within a team the higher priority first. Every slot is held at the
 * kind-blind pause point {@link EnginePausePoint#AFTER_CLAIM} by a gate of its task; the test frees slots one by one
 * and sees which task each freed slot claims next. With the one FIFO list of before, the flooding team's
 * next tasks would take those slots and the other team's task would never arrive at its gate.
 *
 * <p>The worker keeps one of its slots for urgent kinds (R42: {@code teamdesk.worker.reserved-slots} 1, priority
 * {@code >= 5}): exports (priority 0) use the other {@code slots - 1}, the general slots, and a reminder is
 * claimed and completes while A's exports hold every one of them.
 */
@ExtendWith(ArquillianExtension.class)
class FairShareIT extends EngineCase {

    @Deployment
    static WebArchive deployment() {
        return deployment(Map.of("teamdesk.worker.reserved-slots", "1"), FairShareIT.class);
    }

    @Inject
    TeamQueueLimits limits;
    @Inject
    TaskRuns runs;
    @Inject
    Queue queue;
    @Inject
    RedisResources redis;
    @ArquillianResource
    URL url;
    @Inject
    @ConfigProperty(name = "teamdesk.worker.concurrency")
    int slots;

    /** The slots exports may take: all but the reserved one (R42). */
    private int general() {
        return slots - 1;
    }

    private final Map<UUID, GatedPausePoints.Gate> gate = new HashMap<>();

    @Override
    protected boolean tracksRunToCompletion() {
        return true;
    }

    /**
     * Team A floods (general slots + 4 exports), then team B asks for one export: B takes the second general slot
     * freed (an export is no urgent kind: the reserved slot does not take it).
     */
    @Test
    void aFloodingTeamAndATeamWithOneTaskTakeTurnsForTheNextSlots() throws Exception {
        int slots = general();
        EngineFixtures.TestTeam a = fx.newTeam();
        EngineFixtures.TestTeam b = fx.newTeam();
        fx.tickets(a, 3, "Flood ticket");
        fx.tickets(b, 3, "Other ticket");
        List<UUID> flood = new ArrayList<>();
        for (int i = 0; i < slots + 4; i++) {
            flood.add(scheduled(a, "EXPORT"));
        }
        UUID other = scheduled(b, "EXPORT");

        for (int i = 0; i < slots; i++) {
            dispatch(flood.get(i));
        }
        for (int i = 0; i < slots; i++) {
            gate.get(flood.get(i)).awaitArrival(); // every general slot is held by one of A's tasks
        }
        for (int i = slots; i < flood.size(); i++) {
            dispatch(flood.get(i)); // A's lane: 4 waiting
        }
        dispatch(other); // B's lane, behind A's in the rotation

        UUID last = flood.get(flood.size() - 1);
        Poll.until(() -> waitingCode(a, last) == TeamQueueLimits.WaitingCode.BEHIND_TEAM,
                Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "A's last task says it waits behind A's others");
        JsonObject behind = json(Api.at(url).get("tasks/" + last, Tokens.of(a.staff())));
        assertEquals(String.format(java.util.Locale.ROOT, TaskJson.BEHIND_TEAM, 3), behind.getString("waitingReason"),
                "3 of A's tasks wait ahead of its last: " + behind);
        assertTrue(behind.isNull("waitingUntil"), behind.toString());
        assertNull(limits.waiting(b.id(), TaskKind.of("EXPORT"), TaskJobId.of(other, 0)),
                "B's only task waits behind nothing of its own team");

        gate.get(flood.get(0)).release();
        gate.get(flood.get(slots)).awaitArrival(); // the first freed slot: A's lane came first
        gate.get(flood.get(1)).release();
        gate.get(other).awaitArrival(); // the second: B's turn, ahead of A's 3 older waiting tasks
        for (int i = slots + 1; i < flood.size(); i++) {
            assertEquals(0, gates.arrivals(EnginePausePoint.AFTER_CLAIM, flood.get(i)),
                    "A's task " + i + " waits: B was not queued behind A's flood");
        }
    }

    /**
     * Within one team a digest (priority 5) goes before the exports (priority 0) that waited before it: with the
     * reserved slot held by another digest, the first general slot freed takes it.
     */
    @Test
    void withinATeamTheHigherPriorityKindGoesFirst() throws Exception {
        int slots = general();
        EngineFixtures.TestTeam a = fx.newTeam();
        fx.tickets(a, 3, "Priority ticket");
        List<UUID> exports = new ArrayList<>();
        for (int i = 0; i < slots + 2; i++) {
            exports.add(scheduled(a, "EXPORT"));
        }
        UUID holder = scheduled(a, "DIGEST");
        UUID digest = scheduled(a, "DIGEST");
        for (int i = 0; i < slots; i++) {
            dispatch(exports.get(i));
        }
        for (int i = 0; i < slots; i++) {
            gate.get(exports.get(i)).awaitArrival();
        }
        dispatch(holder);
        gate.get(holder).awaitArrival(); // the reserved slot: every slot is held now
        dispatch(exports.get(slots));
        dispatch(exports.get(slots + 1));
        dispatch(digest); // last to wait, first to be served

        gate.get(exports.get(0)).release();
        gate.get(digest).awaitArrival();
        assertEquals(0, gates.arrivals(EnginePausePoint.AFTER_CLAIM, exports.get(slots)), "the older export still waits");
        assertEquals(0, gates.arrivals(EnginePausePoint.AFTER_CLAIM, exports.get(slots + 1)));
    }

    /**
     * R42 (issue 30, P8): team A's exports hold every general slot and more of them wait; team B's reminder
     * (priority 5) is still claimed, by the reserved slot, and completes while A's are all held. Without the
     * reserve it would wait for one of A's exports to end.
     */
    @Test
    void aReminderIsClaimedAndCompletesWhileAnotherTeamsExportsHoldEveryGeneralSlot() throws Exception {
        int slots = general();
        EngineFixtures.TestTeam a = fx.newTeam();
        EngineFixtures.TestTeam b = fx.newTeam();
        fx.tickets(a, 3, "Flood ticket");
        UUID ticket = fx.tickets(b, 1, "Reminder ticket").get(0);
        List<UUID> flood = new ArrayList<>();
        for (int i = 0; i < slots + 3; i++) {
            flood.add(scheduled(a, "EXPORT"));
        }
        for (int i = 0; i < slots; i++) {
            dispatch(flood.get(i));
        }
        for (int i = 0; i < slots; i++) {
            gate.get(flood.get(i)).awaitArrival(); // every general slot is held by one of A's exports
        }
        for (int i = slots; i < flood.size(); i++) {
            dispatch(flood.get(i)); // and 3 more wait
        }
        String runAt = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1).toString();
        UUID reminder = tasks.create(b.staff(), b.id(),
                TaskRequests.reminder(ticket.toString(), "Please look at this", "TEAM_STAFF", runAt)).id();
        track(reminder);
        gate.put(reminder, gates.gate(EnginePausePoint.AFTER_CLAIM, reminder, 1));
        dispatch(reminder);

        gate.get(reminder).awaitArrival(); // claimed, while A holds every general slot
        gate.get(reminder).release();
        Poll.until(() -> ledger.find(reminder).orElseThrow().status() == TaskStatus.COMPLETED,
                Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "B's reminder completes while A's exports are held");
        for (int i = 0; i < slots; i++) {
            assertEquals(1, gates.arrivals(EnginePausePoint.AFTER_CLAIM, flood.get(i)));
            assertTrue(ledger.find(flood.get(i)).orElseThrow().status() != TaskStatus.COMPLETED,
                    "A's export " + i + " still holds its slot");
        }
        for (int i = slots; i < flood.size(); i++) {
            assertEquals(0, gates.arrivals(EnginePausePoint.AFTER_CLAIM, flood.get(i)),
                    "A's waiting export " + i + " took no slot: the reserved slot is not for exports");
        }
    }

    /**
     * R46 on the deployed worker: an export's body runs on a background thread (Java priority 1, OS nice 19 with the
     * test server's JVM options), its claim on the worker's own thread at normal priority; a reminder's body stays on
     * the worker's thread at normal priority.
     */
    @Test
    void anExportsBodyRunsAtBackgroundPriorityAndAReminderAtNormal() throws Exception {
        EngineFixtures.TestTeam a = fx.newTeam();
        UUID ticket = fx.tickets(a, 3, "Ticket").get(0);
        UUID export = scheduled(a, "EXPORT");
        var exportClaim = gates.probeThread(EnginePausePoint.AFTER_CLAIM, export, 1);
        var exportBody = gates.probeThread(ExportPausePoint.EXPORT_AFTER_BATCH_READ, export, 1);
        String runAt = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1).toString();
        UUID reminder = tasks.create(a.staff(), a.id(),
                TaskRequests.reminder(ticket.toString(), "Please look at this", "TEAM_STAFF", runAt)).id();
        track(reminder);
        var reminderBody = gates.probeThread(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, reminder, 1);

        dispatch(export);
        gate.get(export).awaitArrival();
        gate.get(export).release();
        dispatch(reminder);
        GatedPausePoints.ThreadSeen claim = exportClaim.get(GatedPausePoints.MAX_WAIT_S, TimeUnit.SECONDS);
        GatedPausePoints.ThreadSeen body = exportBody.get(GatedPausePoints.MAX_WAIT_S, TimeUnit.SECONDS);
        GatedPausePoints.ThreadSeen urgent = reminderBody.get(GatedPausePoints.MAX_WAIT_S, TimeUnit.SECONDS);
        assertEquals(Thread.NORM_PRIORITY, claim.priority(), "the claim on the worker's thread: " + claim);
        assertEquals(Thread.MIN_PRIORITY, body.priority(), "the export's body on a background thread: " + body);
        assertEquals(19, body.osNice(), "the OS runs the export's body at nice 19: " + body);
        assertEquals(Thread.NORM_PRIORITY, urgent.priority(), "the reminder's body at normal priority: " + urgent);
        assertEquals(claim.osNice(), urgent.osNice(), "the reminder's body at the worker's nice: " + urgent);
        assertTrue(body.osNice() > claim.osNice(), "background below the worker's threads: " + body + " vs " + claim);
        for (UUID t : List.of(export, reminder)) {
            Poll.until(() -> ledger.find(t).orElseThrow().status() == TaskStatus.COMPLETED,
                    Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "task " + t + " completes");
        }
    }

    /**
     * A team capped at 1: its second export waits while the first holds the team's only place (gated at its
     * claim), and the member sees why on the waiting task (the API's {@code waitingReason}); the running one
     * has none. Released, the second runs: the wait used no attempt.
     */
    @Test
    void aTaskWaitingAtItsTeamsCapSaysWhyAndUsesNoAttempt() throws Exception {
        EngineFixtures.TestTeam a = fx.newTeam();
        fx.tickets(a, 3, "Capped ticket");
        try {
            limits.set(a.owner(), a.id(), 1);
            UUID first = scheduled(a, "EXPORT");
            UUID second = scheduled(a, "EXPORT");
            dispatch(first);
            gate.get(first).awaitArrival();
            dispatch(second);
            String token = Tokens.of(a.staff());
            Poll.until(() -> waitingCode(a, second) == TeamQueueLimits.WaitingCode.TEAM_AT_CAP,
                    Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "the queue parks the team at its cap");
            TeamQueueLimits.TeamLimit listed = limits.list().stream().filter(l -> l.teamId().equals(a.id()))
                    .findFirst().orElseThrow();
            assertTrue(listed.atCap(), listed.toString());
            assertEquals(1, listed.limited(), "the waiting one is held by the cap: " + listed);
            JsonObject waiting = json(Api.at(url).get("tasks/" + second, token));
            assertEquals("WAITING", waiting.getString("status"));
            assertEquals(TaskJson.TEAM_AT_CAP, waiting.getString("waitingReason"));
            JsonObject running = json(Api.at(url).get("tasks/" + first, token));
            assertTrue(running.isNull("waitingReason"), "the running task waits for nothing: " + running);
            assertEquals(0, gates.arrivals(EnginePausePoint.AFTER_CLAIM, second), "the cap holds it");
            gate.get(first).release();
            gate.get(second).awaitArrival();
            assertEquals(1, ledger.find(second).orElseThrow().attempts(), "its wait at the cap was no attempt");
        } finally {
            fx.exec("DELETE FROM team_queue_limit WHERE team_id = ?", a.id());
            queue.setGroupCap(a.id().toString(), null);
        }
    }

    private static JsonObject json(Api.Reply r) {
        assertEquals(200, r.status(), r.body());
        try (JsonReader reader = Json.createReader(new StringReader(r.body()))) {
            return reader.readObject();
        }
    }

    /**
     * A rate limit of 1 EXPORT per minute for a team: of 3 exports handed to the queue at once, the ones over the
     * limit wait in delayed for the next minute, WAITING in the ledger with no attempt used; the ones that started
     * did so in distinct minutes (3 hand-overs within a second cross at most one minute's end, so at least one
     * waits). The limit is listed and audited.
     */
    @Test
    void aTeamsRateLimitHoldsTheTasksOverItWithoutAnAttempt() throws Exception {
        EngineFixtures.TestTeam a = fx.newTeam();
        fx.tickets(a, 3, "Rated ticket");
        List<UUID> exports = new ArrayList<>();
        try {
            TeamQueueLimits.TeamLimit set = limits.setRate(a.owner(), a.id(), TaskKind.of("EXPORT"), 1);
            assertEquals(Map.of("EXPORT", 1), set.perMinute());
            for (int i = 0; i < 3; i++) {
                String runAt = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1).toString();
                exports.add(tasks.create(a.staff(), a.id(), new NewTaskRequest(Json.createObjectBuilder()
                        .add("kind", "EXPORT").add("scope", "TEAM").add("runAt", runAt).build())).id());
            }
            exports.forEach(this::dispatch);
            Poll.until(() -> exports.stream().allMatch(t -> {
                String state = queue.getJob(TaskJobId.of(t, 0).toString()).map(j -> j.state().name()).orElse("");
                return state.equals("COMPLETED") || state.equals("DELAYED");
            }), Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S * 2), "each export either ran or waits for its minute");
            List<Long> startedInMinute = new ArrayList<>();
            int held = 0;
            for (UUID t : exports) {
                JobRecord job = queue.getJob(TaskJobId.of(t, 0).toString()).orElseThrow();
                if (job.state() == JobState.DELAYED) {
                    held++;
                    assertEquals(0, job.attemptsStarted(), "held before it started");
                    assertEquals(TaskStatus.WAITING, ledger.find(t).orElseThrow().status());
                    assertEquals(0, ledger.find(t).orElseThrow().attempts(), "no attempt used");
                } else {
                    startedInMinute.add(job.processedAt().toEpochMilli() / 60_000);
                }
            }
            assertTrue(held >= 1, "at least one of 3 waits for a later minute");
            // A held one says why; a minute's end may free one meanwhile, so look at whichever is held now
            String token = Tokens.of(a.staff());
            JsonObject[] shown = new JsonObject[1];
            Poll.until(() -> exports.stream().anyMatch(t -> {
                JsonObject j = json(Api.at(url).get("tasks/" + t, token));
                if (!j.isNull("waitingReason") && j.getString("waitingReason").startsWith("Rate limit")) {
                    shown[0] = j;
                    return true;
                }
                return false;
            }), Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S), "a held task says it waits for its rate limit");
            java.time.Instant until = java.time.Instant.parse(shown[0].getString("waitingUntil"));
            assertEquals(0, until.toEpochMilli() % 60_000, "the next start is at a minute's end: " + shown[0]);
            assertTrue(until.isAfter(java.time.Instant.now().minusSeconds(3)), shown[0].toString());
            assertEquals(String.format(java.util.Locale.ROOT, TaskJson.RATE_LIMITED, 1, "EXPORT", until),
                    shown[0].getString("waitingReason"));
            assertEquals("WAITING", shown[0].getString("status"));
            TeamQueueLimits.TeamLimit listed = limits.list().stream().filter(l -> l.teamId().equals(a.id()))
                    .findFirst().orElseThrow();
            assertTrue(listed.limited() >= 1, "the operator sees the held tasks: " + listed);
            assertEquals(startedInMinute.size(), new java.util.HashSet<>(startedInMinute).size(),
                    "never two in one minute: " + startedInMinute);
            assertEquals(1L, fx.count("SELECT count(*) FROM system_event WHERE kind = 'admin.team.rate_limit'"
                    + " AND team_id = ?", a.id()));
        } finally {
            limits.setRate(a.owner(), a.id(), TaskKind.of("EXPORT"), null);
            for (UUID t : exports) {
                if (ledger.find(t).orElseThrow().status() == TaskStatus.WAITING) {
                    runs.cancel(a.staff(), t, null); // leaves nothing for the next minute
                }
            }
        }
    }

    /**
     * A team's cap is the ledger's (team_queue_limit): when Redis loses it (a restart without its data), the
     * recovery sweep's {@link TeamQueueLimits#applyAll()} writes it again, and clearing it in the ledger clears
     * the queue's.
     */
    @Test
    void aCapLostWithRedisDataComesBackFromTheLedger() {
        EngineFixtures.TestTeam a = fx.newTeam();
        UUID operator = a.owner();
        try {
            limits.set(operator, a.id(), 2);
            assertEquals(Integer.valueOf(2), capInQueue(a.id()));
            redis.redis().del(queue.keys().lanes() + "-caps"); // what a Redis restart without its data leaves
            assertNull(capInQueue(a.id()));
            assertEquals(1, limits.applyAll(), "the sweep writes the lost cap");
            assertEquals(Integer.valueOf(2), capInQueue(a.id()));
            assertEquals(0, limits.applyAll(), "and nothing when the queue has it");
            fx.exec("DELETE FROM team_queue_limit WHERE team_id = ?", a.id()); // gone from the ledger
            limits.applyAll();
            assertNull(capInQueue(a.id()), "a cap the ledger no longer has is cleared in the queue");
        } finally {
            fx.exec("DELETE FROM team_queue_limit WHERE team_id = ?", a.id());
            queue.setGroupCap(a.id().toString(), null);
        }
    }

    private Integer capInQueue(UUID team) {
        return queue.groups().stream().filter(g -> g.group().equals(team.toString())).map(GroupInfo::cap)
                .filter(java.util.Objects::nonNull).findFirst().orElse(null);
    }

    // ---- helpers ----

    /** @return why the team's task (run 0) waits, as the API would say it, or null */
    private TeamQueueLimits.WaitingCode waitingCode(EngineFixtures.TestTeam team, UUID task) {
        TeamQueueLimits.Waiting w = limits.waiting(team.id(), ledger.find(task).orElseThrow().kind(),
                TaskJobId.of(task, 0));
        return w == null ? null : w.code();
    }

    /** A team task scheduled an hour ahead (so that creating it dispatches nothing), its claim gated. */
    private UUID scheduled(EngineFixtures.TestTeam team, String kind) {
        UUID id = scheduledTask(team, kind);
        gate.put(id, gates.gate(EnginePausePoint.AFTER_CLAIM, id, 1));
        return id;
    }
}
