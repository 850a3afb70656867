package com.teamdesk.tasks.task.fairshare;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.platform.InstanceId;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.queue.GroupInfo;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.queue.RateStatus;
import com.teamdesk.tasks.task.ledger.LedgerException;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.team.SystemEventService;
import com.teamdesk.tasks.team.TeamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Issue 30: an operator's cap of one team's tasks running at once, and its rate limits per kind (tasks that start
 * per minute), on every instance. The row in
 * {@code team_queue_limit} is the source; the queue enforces it atomically as its group's cap
 * ({@link Queue#setGroupCap}); {@link #applyAll()} (every recovery sweep) writes every cap to the queue again, so a
 * Redis that lost its data has them back within a tick. A task waiting at its team's cap is not claimed, so it uses
 * no attempt and stays WAITING. SQL errors throw {@link com.teamdesk.tasks.platform.TableAccessException} naming
 * the table ({@link LedgerException} for the ledger's).
 *
 * <p>Why one class of about 360 lines: the operator's caps and rate limits live in two tables and in the queue at
 * once; reading, writing and re-applying them to the queue in one class keeps the order that makes a Redis restart
 * lose none (row first, then the queue, and {@link #applyAll()} from the rows).
 */
@ApplicationScoped
public class TeamQueueLimits {
    private static final Logger LOG = Logger.getLogger(TeamQueueLimits.class.getName());
    /** Highest cap an operator may set. */
    public static final int MAX = 1000;
    /** Highest rate limit an operator may set, tasks per minute. */
    public static final int MAX_PER_MINUTE = 100_000;
    private static final long MINUTE_MS = 60_000;

    private static final Jdbc.Table CAPS = Jdbc.Table.of("team_queue_limit");
    private static final Jdbc.Table RATES = Jdbc.Table.of("team_rate_limit");

    @Inject
    Jdbc jdbc;

    @Inject
    Queue queue;

    @Inject
    TeamDirectory teams;

    @Inject
    SystemEventService events;

    @Inject
    Clock clock;

    /** What the queue said of the teams at {@code read} (System.nanoTime): refreshed at most every 2 s per instance. */
    private volatile QueueView view = new QueueView(Map.of(), Map.of(), System.nanoTime() - VIEW_TTL_NS);
    private static final long VIEW_TTL_NS = 2_000_000_000L;

    /** The queue's groups by team and its rate limits by rate key, as read at {@code read}. */
    private record QueueView(Map<UUID, GroupInfo> groups, Map<String, RateStatus> rates, long read) {
    }

    /** Why a due task waits (issue 30), most binding first. */
    public enum WaitingCode {
        /** its team runs as many tasks as its cap allows */
        TEAM_AT_CAP,
        /** its team's tasks of its kind reached their rate limit for this minute */
        RATE_LIMITED,
        /** other tasks of its team are ahead of it in its team's lane */
        BEHIND_TEAM
    }

    /**
     * Why a due WAITING task has not started.
     *
     * @param code  the reason
     * @param until when it may start, for {@link WaitingCode#RATE_LIMITED} (the rate window's end), else null
     * @param ahead for {@link WaitingCode#BEHIND_TEAM} the team's tasks ahead of it in the queue, else 0
     * @param limit for {@link WaitingCode#RATE_LIMITED} the limit per minute, for {@link WaitingCode#TEAM_AT_CAP}
     *              the cap, else 0
     */
    public record Waiting(WaitingCode code, Instant until, long ahead, int limit) {
    }

    /**
     * One team's limit and load as an operator sees it.
     *
     * @param teamId     the team
     * @param team       its slug, for people (null when the team is gone)
     * @param maxRunning its cap, or null for none
     * @param waiting    its tasks waiting in the queue
     * @param running    its tasks RUNNING in the ledger
     * @param atCap      true when tasks of it wait because it is at its cap
     * @param limited    its tasks held back by a limit now: every waiting one while it is at its cap, plus those
     *                   over a rate limit until the minute ends
     * @param perMinute  its rate limits: kind -> most tasks of the kind that start per minute (empty: none)
     */
    @jakarta.json.bind.annotation.JsonbNillable
    public record TeamLimit(UUID teamId, String team, Integer maxRunning, long waiting, long running, boolean atCap,
                            long limited, Map<String, Integer> perMinute) {
    }

    /** @return the queue's rate key of a team's tasks of one kind: {@code <team>:<kind>} */
    public static String rateKey(UUID teamId, TaskKind kind) {
        return teamId + ":" + kind.name();
    }

    /** @return the team of a rate key made by {@link #rateKey}, or empty for another key */
    static java.util.Optional<UUID> teamOf(String rateKey) {
        int colon = rateKey.indexOf(':');
        return colon > 0 ? parse(rateKey.substring(0, colon)) : java.util.Optional.empty();
    }

    /**
     * Sets or clears a team's rate limit of one kind (audited: {@code admin.team.rate_limit}), then hands it to
     * the queue: at most {@code perMinute} of the team's tasks of the kind start per minute, on every instance
     * together; one over it waits for the next minute, WAITING, with no attempt used.
     *
     * @param perMinute 1-{@value #MAX_PER_MINUTE}, or null to clear
     * @return the team's limits and load after the change
     * @throws NotFoundException     ({@code team.not_found}) no such team
     * @throws InvalidInputException ({@code limits.invalid}) a limit out of range
     */
    public TeamLimit setRate(UUID operator, UUID teamId, TaskKind kind, Integer perMinute) {
        if (perMinute != null && (perMinute < 1 || perMinute > MAX_PER_MINUTE)) {
            throw new InvalidInputException("limits.invalid",
                    "perMinute must be 1-" + MAX_PER_MINUTE + ", or null for none.");
        }
        if (teams.slugOf(teamId).isEmpty()) {
            throw new NotFoundException("team.not_found", "No such team.");
        }
        Instant now = clock.instant();
        if (perMinute == null) {
            jdbc.update(RATES, "team rate limit", "DELETE FROM team_rate_limit WHERE team_id = ? AND kind = ?", teamId,
                    kind.name());
        } else {
            jdbc.update(RATES, "team rate limit", "INSERT INTO team_rate_limit (team_id, kind, per_minute, updated_by,"
                    + " updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (team_id, kind) DO UPDATE SET per_minute ="
                    + " EXCLUDED.per_minute, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at",
                    teamId, kind.name(), perMinute, operator, now);
        }
        events.append(teamId, "admin.team.rate_limit", operator, null, Jsons.PROVIDER.createObjectBuilder()
                .add("kind", kind.name())
                .add("perMinute", perMinute == null ? JsonValue.NULL : Jsons.PROVIDER.createValue(perMinute))
                .add("instance", InstanceId.get()).build(), now);
        try {
            queue.setRateLimit(rateKey(teamId, kind), perMinute, MINUTE_MS);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.limits: the queue has the rate limit of team " + teamId
                    + " at the next recovery sweep: " + e);
        }
        return limitOf(teamId);
    }

    /**
     * Sets or clears a team's cap (audited: {@code admin.team.limits}), then hands it to the queue.
     *
     * @param maxRunning 1-{@value #MAX}, or null to clear
     * @return the team's limit and load after the change
     * @throws NotFoundException     ({@code team.not_found}) no such team
     * @throws InvalidInputException ({@code limits.invalid}) a cap out of range
     */
    public TeamLimit set(UUID operator, UUID teamId, Integer maxRunning) {
        if (maxRunning != null && (maxRunning < 1 || maxRunning > MAX)) {
            throw new InvalidInputException("limits.invalid", "maxRunning must be 1-" + MAX + ", or null for none.");
        }
        if (teams.slugOf(teamId).isEmpty()) {
            throw new NotFoundException("team.not_found", "No such team.");
        }
        Instant now = clock.instant();
        if (maxRunning == null) {
            jdbc.update(CAPS, "team queue limit", "DELETE FROM team_queue_limit WHERE team_id = ?", teamId);
        } else {
            jdbc.update(CAPS, "team queue limit", "INSERT INTO team_queue_limit (team_id, max_running, updated_by,"
                    + " updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (team_id) DO UPDATE SET max_running ="
                    + " EXCLUDED.max_running, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at",
                    teamId, maxRunning, operator, now);
        }
        events.append(teamId, "admin.team.limits", operator, null, Jsons.PROVIDER.createObjectBuilder()
                .add("maxRunning", maxRunning == null ? JsonValue.NULL : Jsons.PROVIDER.createValue(maxRunning))
                .add("instance", InstanceId.get()).build(), now);
        try {
            queue.setGroupCap(teamId.toString(), maxRunning);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.limits: the queue has the cap of team " + teamId
                    + " at the next recovery sweep: " + e);
        }
        return limitOf(teamId);
    }

    private TeamLimit limitOf(UUID teamId) {
        return list().stream().filter(l -> l.teamId().equals(teamId)).findFirst()
                .orElse(new TeamLimit(teamId, teams.slugsOf(List.of(teamId)).get(teamId), null, 0, 0, false, 0, Map.of()));
    }

    /**
     * Why a due WAITING task of a team has not started (issue 30: the reason a member sees), or null when it just
     * waits for a free slot (or is not in the queue yet). At its team's cap, then over its team's rate limit of its
     * kind, then behind its team's other waiting tasks. The caps and rate limits are read from the queue at most
     * every 2 s per instance; the place in the team's lane (one ZRANK) only when the team has 2 or more tasks
     * waiting. Null when the queue cannot be asked.
     */
    public Waiting waiting(UUID teamId, TaskKind kind, TaskJobId job) {
        QueueView v = view();
        GroupInfo g = v.groups().get(teamId);
        if (g != null && g.atCap()) {
            return new Waiting(WaitingCode.TEAM_AT_CAP, null, 0, g.cap() == null ? 0 : g.cap());
        }
        RateStatus rate = v.rates().get(rateKey(teamId, kind));
        if (rate != null && rate.full() && rate.windowEnd().isAfter(clock.instant())) {
            return new Waiting(WaitingCode.RATE_LIMITED, rate.windowEnd(), 0, rate.limit());
        }
        if (g == null || g.waiting() < 2) {
            return null;
        }
        try {
            return queue.laneRank(teamId.toString(), job.toString()).filter(ahead -> ahead > 0)
                    .map(ahead -> new Waiting(WaitingCode.BEHIND_TEAM, null, ahead, 0)).orElse(null);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private QueueView view() {
        QueueView v = view;
        long now = System.nanoTime();
        if (now - v.read() < VIEW_TTL_NS) {
            return v;
        }
        try {
            v = new QueueView(groupsByTeam(), ratesByKey(), now);
        } catch (RuntimeException e) {
            v = new QueueView(Map.of(), Map.of(), now);
        }
        view = v;
        return v;
    }

    private Map<UUID, GroupInfo> groupsByTeam() {
        Map<UUID, GroupInfo> groups = new HashMap<>();
        for (GroupInfo g : queue.groups()) {
            parse(g.group()).ifPresent(team -> groups.put(team, g));
        }
        return groups;
    }

    private Map<String, RateStatus> ratesByKey() {
        Map<String, RateStatus> rates = new HashMap<>();
        for (RateStatus r : queue.rateStatus()) {
            rates.put(r.rateKey(), r);
        }
        return rates;
    }

    /** @return every team with a cap or a rate limit, or with tasks waiting or running; limited teams first */
    public List<TeamLimit> list() {
        Map<UUID, Integer> caps = caps();
        Map<UUID, Map<String, Integer>> rates = rates();
        Map<UUID, GroupInfo> groups = groupsByTeam();
        Map<UUID, Long> held = new HashMap<>();
        for (RateStatus r : queue.rateStatus()) {
            if (r.held() > 0) {
                teamOf(r.rateKey()).ifPresent(team -> held.merge(team, r.held(), Long::sum));
            }
        }
        Map<UUID, Long> running = new HashMap<>();
        for (Map.Entry<UUID, Long> r : jdbc.query(LedgerException.TABLE, "running per team", "SELECT team_id, count(*)"
                + " FROM background_task WHERE status = 'RUNNING' GROUP BY team_id",
                rs -> Map.entry(Jdbc.uuid(rs, 1), rs.getLong(2)))) {
            running.put(r.getKey(), r.getValue());
        }
        java.util.Set<UUID> order = new java.util.LinkedHashSet<>(caps.keySet()); // limited teams first
        order.addAll(rates.keySet());
        order.addAll(groups.keySet());
        order.addAll(running.keySet());
        Map<UUID, String> slugs = teams.slugsOf(order);
        List<TeamLimit> out = new ArrayList<>(order.size());
        for (UUID team : order) {
            GroupInfo g = groups.get(team);
            boolean atCap = g != null && g.atCap();
            long waiting = g == null ? 0 : g.waiting();
            out.add(new TeamLimit(team, slugs.get(team), caps.get(team), waiting, running.getOrDefault(team, 0L), atCap,
                    (atCap ? waiting : 0) + held.getOrDefault(team, 0L), rates.getOrDefault(team, Map.of())));
        }
        return out;
    }

    /**
     * Writes every cap and rate limit of the tables to the queue and clears those the tables no longer have
     * (every recovery sweep: a Redis restart without its data gets them back).
     *
     * @return the caps and rate limits written
     */
    public int applyAll() {
        int written = 0;
        Map<String, Integer> wantedCaps = new HashMap<>();
        caps().forEach((team, cap) -> wantedCaps.put(team.toString(), cap));
        Map<String, Integer> queuedCaps = queue.groupCaps();
        for (String group : queuedCaps.keySet()) {
            if (!wantedCaps.containsKey(group)) {
                queue.setGroupCap(group, null);
            }
        }
        for (Map.Entry<String, Integer> c : wantedCaps.entrySet()) {
            if (!c.getValue().equals(queuedCaps.get(c.getKey()))) {
                queue.setGroupCap(c.getKey(), c.getValue());
                written++;
            }
        }
        Map<String, Integer> wantedRates = new HashMap<>();
        rates().forEach((team, kinds) -> kinds.forEach((kind, n) -> wantedRates.put(team + ":" + kind, n)));
        Map<String, String> queuedRates = queue.rateLimits();
        for (String key : queuedRates.keySet()) {
            if (!wantedRates.containsKey(key)) {
                queue.setRateLimit(key, null, MINUTE_MS);
            }
        }
        for (Map.Entry<String, Integer> r : wantedRates.entrySet()) {
            if (!(r.getValue() + ":" + MINUTE_MS).equals(queuedRates.get(r.getKey()))) {
                queue.setRateLimit(r.getKey(), r.getValue(), MINUTE_MS);
                written++;
            }
        }
        return written;
    }

    private Map<UUID, Map<String, Integer>> rates() {
        Map<UUID, Map<String, Integer>> m = new java.util.LinkedHashMap<>();
        for (Object[] r : jdbc.query(RATES, "team rate limits", "SELECT team_id, kind, per_minute FROM team_rate_limit"
                + " ORDER BY team_id, kind", rs -> new Object[] {Jdbc.uuid(rs, 1), rs.getString(2), rs.getInt(3)})) {
            m.computeIfAbsent((UUID) r[0], k -> new java.util.TreeMap<>()).put((String) r[1], (Integer) r[2]);
        }
        return m;
    }

    private Map<UUID, Integer> caps() {
        Map<UUID, Integer> m = new java.util.LinkedHashMap<>();
        for (Map.Entry<UUID, Integer> r : jdbc.query(CAPS, "team queue limits", "SELECT team_id, max_running FROM"
                + " team_queue_limit ORDER BY team_id", rs -> Map.entry(Jdbc.uuid(rs, 1), rs.getInt(2)))) {
            m.put(r.getKey(), r.getValue());
        }
        return m;
    }

    private static java.util.Optional<UUID> parse(String group) {
        try {
            return java.util.Optional.of(UUID.fromString(group));
        } catch (IllegalArgumentException e) {
            return java.util.Optional.empty();
        }
    }
}
