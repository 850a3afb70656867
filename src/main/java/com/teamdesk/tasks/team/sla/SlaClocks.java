package com.teamdesk.tasks.team.sla;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.Priority;
import com.teamdesk.tasks.team.TicketChanged;
import com.teamdesk.tasks.team.TicketStatus;
import com.teamdesk.tasks.team.calendar.BusinessCalendar;
import com.teamdesk.tasks.team.calendar.CalendarChanged;
import com.teamdesk.tasks.team.calendar.TeamCalendars;
import com.teamdesk.tasks.team.sla.SlaClock.Metric;
import com.teamdesk.tasks.team.sla.SlaClock.State;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Issue 53 (R57): each ticket's SLA clocks, moved in the transaction of what moves them — a ticket's creation, status,
 * priority or staff reply ({@link TicketChanged}), a calendar write ({@link CalendarChanged}), a policy write — always
 * under the team lock, each change moving the clock's version. Every method joins its caller's transaction.
 *
 * <p>What moves a clock: a new ticket starts both of its priority's promises; PENDING pauses its RUNNING clocks and
 * OPEN resumes its PAUSED ones; a staff reply meets the first response; CLOSED meets both; a priority change re-targets
 * them to the new priority's policy (starts them when the ticket had none, cancels the unfinished ones when the new
 * priority has no policy, and a later policy restarts a cancelled one from its version, so that no version is ever
 * used twice); a calendar or policy change re-targets every unfinished clock of the team, counting the time used so
 * far on the calendar it ran on. MET and BREACHED are final: reopening a CLOSED ticket starts nothing.
 */
@ApplicationScoped
@Transactional(TxType.MANDATORY)
public class SlaClocks {
    private static final Jdbc.Table TABLE = Jdbc.Table.of("ticket_sla_clock");
    private static final String COLUMNS = "metric, state, target_seconds, warn_percent, used_micros, running_since,"
            + " due_at, warn_at, ended_at, version, warned";
    private static final Jdbc.Row<SlaClock> ROW = rs -> clock(rs, 0);

    @Inject
    Jdbc jdbc;

    @Inject
    TeamCalendars calendars;

    @Inject
    JdbcTeamWrites teamWrites;

    @Inject
    Event<SlaClockMoved> moved;

    /** R57: the clocks of a ticket follow its change (see the class). */
    public void onTicketChanged(@Observes TicketChanged e) {
        List<SlaClockMoved.Moved> out = new ArrayList<>(2);
        ticketChanged(e, out);
        fire(e.teamId(), out);
    }

    private void ticketChanged(TicketChanged e, List<SlaClockMoved.Moved> out) {
        Map<Metric, SlaClock> now = e.created() ? Map.of() : clocks(e.ticketId());
        if (now.isEmpty() && !e.created() && !e.priorityMoved()) {
            return; // no promise to move (the ticket's priority has no policy)
        }
        if (e.created() && policies(e.teamId()).containsKey(e.priority())) {
            // a new ticket is created without the team lock: take it before reading what the clocks start from, so
            // that a calendar or policy write (which holds it) is either seen or sees these clocks
            teamWrites.lockTeam(e.teamId());
        }
        SlaPolicy policy = e.created() || e.priorityMoved() ? policies(e.teamId()).get(e.priority()) : null;
        if (e.priorityMoved() && policy == null) { // the promise is withdrawn; its versions are kept, never reused
            BusinessCalendar calendar = calendar(e.teamId());
            now.values().forEach(c -> saveIfMoved(e.teamId(), e.ticketId(), c, c.brokenBy(e.at(), calendar)
                    .cancel(e.at(), calendar), e.at(), out));
            return;
        }
        if (policy == null && e.created()) {
            return;
        }
        BusinessCalendar calendar = calendar(e.teamId());
        for (Metric m : Metric.values()) {
            SlaClock c = now.get(m);
            SlaClock next;
            if (c == null || c.state() == SlaClock.State.CANCELLED) { // a first promise, or a new one after a withdrawal
                if (policy == null || e.status() == TicketStatus.CLOSED) {
                    continue;
                }
                next = c == null ? SlaClock.start(m, policy.target(m), policy.warnPercent(), e.at(), calendar)
                        : c.restart(policy.target(m), policy.warnPercent(), e.at(), calendar);
                if (e.status() == TicketStatus.PENDING) {
                    next = next.pause(e.at(), calendar);
                }
            } else {
                next = c.brokenBy(e.at(), calendar); // a change after the due instant finds the promise broken (R59)
                if (policy != null) {
                    next = next.retarget(policy.target(m), policy.warnPercent(), e.at(), calendar, calendar);
                }
                if (e.staffReplied() && m == Metric.FIRST_RESPONSE) {
                    next = next.met(e.at(), calendar);
                }
                if (e.statusMoved()) {
                    next = switch (e.status()) {
                        case CLOSED -> next.met(e.at(), calendar);
                        case PENDING -> next.pause(e.at(), calendar);
                        case OPEN -> next.resume(e.at(), calendar);
                    };
                }
                if ((e.staffReplied() && m == Metric.FIRST_RESPONSE) || e.status() == TicketStatus.CLOSED) {
                    next = next.settledLate(); // a breached promise kept late leaves the board
                }
            }
            saveIfMoved(e.teamId(), e.ticketId(), c, next, e.at(), out);
        }
    }

    /** R57: a calendar write computes every unfinished clock of the team again (time used so far on the old one). */
    public void onCalendarChanged(@Observes CalendarChanged e) {
        BusinessCalendar before = e.before().orElseGet(() -> BusinessCalendar.allHours(ZoneOffset.UTC));
        if (before.sameAs(e.after())) {
            return; // written again unchanged: no clock moves, no escalation is started
        }
        List<TicketClock> next = new ArrayList<>();
        for (TicketClock tc : unfinished(e.teamId())) {
            SlaClock c = tc.clock().brokenBy(e.at(), before);
            next.add(tc.with(c.retarget(c.target(), c.warnPercent(), e.at(), before, e.after())));
        }
        List<SlaClockMoved.Moved> out = new ArrayList<>();
        saveAll(e.teamId(), next, e.at(), out);
        fire(e.teamId(), out);
    }

    /** R57: a policy write re-targets every unfinished clock of the team to its ticket's priority's new policy. */
    void policiesChanged(UUID teamId, Map<Priority, SlaPolicy> now, Instant at) {
        BusinessCalendar calendar = calendar(teamId);
        List<TicketClock> next = new ArrayList<>();
        for (TicketClock tc : unfinished(teamId)) {
            SlaPolicy p = now.get(tc.priority());
            SlaClock c = tc.clock().brokenBy(at, calendar);
            SlaClock after = p == null ? c.cancel(at, calendar)
                    : c.retarget(p.target(c.metric()), p.warnPercent(), at, calendar, calendar);
            if (!after.equals(tc.clock())) {
                next.add(tc.with(after));
            }
        }
        List<SlaClockMoved.Moved> out = new ArrayList<>();
        saveAll(teamId, next, at, out);
        fire(teamId, out);
    }

    /** @return the team's policies by priority (R56) */
    @Transactional(TxType.SUPPORTS)
    public Map<Priority, SlaPolicy> policies(UUID teamId) {
        Map<Priority, SlaPolicy> out = new EnumMap<>(Priority.class);
        jdbc.query(SlaPolicy.TABLE, "policy read", "SELECT priority, first_response_minutes, resolution_minutes,"
                + " warn_percent FROM sla_policy WHERE team_id = ?", rs -> new SlaPolicy(Priority.valueOf(rs.getString(1)),
                        rs.getInt(2), rs.getInt(3), rs.getInt(4)), teamId).forEach(p -> out.put(p.priority(), p));
        return out;
    }

    /** @return the team's calendar, or every minute counted when it has none */
    @Transactional(TxType.SUPPORTS)
    BusinessCalendar calendar(UUID teamId) {
        return calendars.find(teamId).map(TeamCalendars.Stored::calendar)
                .orElseGet(() -> BusinessCalendar.allHours(ZoneOffset.UTC));
    }

    /** @return the clocks of a ticket, by metric (none when its priority had no policy) */
    @Transactional(TxType.SUPPORTS)
    public Map<Metric, SlaClock> clocks(UUID ticketId) {
        Map<Metric, SlaClock> out = new EnumMap<>(Metric.class);
        jdbc.query(TABLE, "clock read", "SELECT " + COLUMNS + " FROM ticket_sla_clock WHERE ticket_id = ?", ROW,
                ticketId).forEach(c -> out.put(c.metric(), c));
        return out;
    }

    /** A RUNNING clock with what the board shows of its ticket. */
    record RunningClock(UUID ticketId, String title, Priority priority, UUID assigneeId, SlaClock clock) {
    }

    /**
     * @return the team's RUNNING clocks with a due instant and its BREACHED ones not yet settled late, soonest due
     *         first, at most {@code limit} (index scan)
     */
    @Transactional(TxType.SUPPORTS)
    List<RunningClock> running(UUID teamId, int limit) {
        return jdbc.query(TABLE, "board read", "SELECT c.ticket_id, k.title, k.priority, k.assignee_id, " + prefixed("c.")
                + " FROM ticket_sla_clock c JOIN ticket k ON k.id = c.ticket_id WHERE c.team_id = ? AND c.state IN"
                + " ('RUNNING', 'BREACHED') AND c.due_at IS NOT NULL ORDER BY c.due_at, c.ticket_id, c.metric LIMIT ?",
                rs -> new RunningClock(Jdbc.uuid(rs, 1), rs.getString(2), Priority.valueOf(rs.getString(3)),
                        Jdbc.uuid(rs, 4), clock(rs, 4)), teamId, limit);
    }

    /** A clock with its ticket and the ticket's priority. */
    private record TicketClock(UUID ticketId, Priority priority, SlaClock clock) {
        TicketClock with(SlaClock next) {
            return new TicketClock(ticketId, priority, next);
        }
    }

    private List<TicketClock> unfinished(UUID teamId) {
        return jdbc.query(TABLE, "clock read", "SELECT c.ticket_id, k.priority, " + prefixed("c.") + " FROM"
                + " ticket_sla_clock c JOIN ticket k ON k.id = c.ticket_id WHERE c.team_id = ? AND c.state IN"
                + " ('RUNNING', 'PAUSED') ORDER BY c.ticket_id, c.metric FOR UPDATE OF c", rs -> new TicketClock(
                        Jdbc.uuid(rs, 1), Priority.valueOf(rs.getString(2)), clock(rs, 2)), teamId);
    }

    /** @return the clock of {@link #COLUMNS} read from column {@code skip + 1} on */
    private static SlaClock clock(ResultSet rs, int skip) throws SQLException {
        return new SlaClock(Metric.valueOf(rs.getString(skip + 1)), State.valueOf(rs.getString(skip + 2)),
                Duration.ofSeconds(rs.getLong(skip + 3)), rs.getInt(skip + 4),
                Duration.of(rs.getLong(skip + 5), ChronoUnit.MICROS), Jdbc.instant(rs, skip + 6),
                Jdbc.instant(rs, skip + 7), Jdbc.instant(rs, skip + 8), Jdbc.instant(rs, skip + 9), rs.getInt(skip + 10),
                rs.getBoolean(skip + 11));
    }

    private static String prefixed(String alias) {
        return alias + COLUMNS.replace(", ", ", " + alias);
    }

    private void saveIfMoved(UUID teamId, UUID ticketId, SlaClock before, SlaClock after, Instant at,
            List<SlaClockMoved.Moved> out) {
        if (!after.equals(before)) {
            save(teamId, ticketId, after, at, out);
        }
    }

    /** R59: tells the escalations of the clocks a change left RUNNING with an instant to escalate at. */
    private void fire(UUID teamId, List<SlaClockMoved.Moved> out) {
        if (!out.isEmpty()) {
            moved.fire(new SlaClockMoved(teamId, List.copyOf(out)));
        }
    }

    /**
     * A clock of a ticket, locked for its escalation ({@link #lockForEscalation}).
     *
     * @param title      the ticket's title
     * @param assigneeId the ticket's assignee, or null
     * @param zone       the team's calendar's zone (UTC without a calendar), for messages
     */
    public record LockedClock(SlaClock clock, String title, UUID assigneeId, java.time.ZoneId zone) {
    }

    /**
     * R59: reads one clock of a ticket of the team {@code FOR UPDATE}, with its ticket, for an escalation deciding
     * whether its version is still current; the caller holds the team lock.
     *
     * @return the clock, or empty when the ticket has no such clock (or is not in the team)
     */
    public Optional<LockedClock> lockForEscalation(UUID teamId, UUID ticketId, Metric metric) {
        return jdbc.queryOne(TABLE, "clock lock", "SELECT k.title, k.assignee_id, " + prefixed("c.") + " FROM"
                + " ticket_sla_clock c JOIN ticket k ON k.id = c.ticket_id WHERE c.ticket_id = ? AND c.metric = ? AND"
                + " c.team_id = ? FOR UPDATE OF c", rs -> new LockedClock(clock(rs, 2), rs.getString(1),
                        Jdbc.uuid(rs, 2), null), ticketId, metric.name(), teamId)
                .map(l -> new LockedClock(l.clock(), l.title(), l.assigneeId(), calendar(teamId).zone()));
    }

    /**
     * R59: the breach's escalation breaks a RUNNING promise at its due instant (BREACHED, version moved), in the
     * escalation's transaction; a clock not RUNNING is left as it is.
     *
     * @return the clock as it is now
     */
    public SlaClock breach(UUID teamId, UUID ticketId, SlaClock c, Instant at) {
        SlaClock next = c.breached(c.due() != null ? c.due() : at, calendar(teamId));
        saveIfMoved(teamId, ticketId, c, next, at, new ArrayList<>());
        return next;
    }

    /** R59: the warning's escalation was sent: recorded on the clock, in the escalation's transaction. */
    public void markWarned(UUID teamId, UUID ticketId, SlaClock c, Instant at) {
        saveIfMoved(teamId, ticketId, c, c.markWarned(), at, new ArrayList<>());
    }

    /**
     * R59: one clock of a ticket as committed, without a lock: for an escalation to learn cheaply that its version has
     * been passed (versions only grow, so what this read shows as passed stays passed).
     *
     * @return the clock, or empty when the ticket has no such clock
     */
    @Transactional(TxType.SUPPORTS)
    public Optional<SlaClock> peek(UUID ticketId, Metric metric) {
        return jdbc.queryOne(TABLE, "clock read", "SELECT " + COLUMNS + " FROM ticket_sla_clock WHERE ticket_id = ? AND"
                + " metric = ?", ROW, ticketId, metric.name());
    }

    private void save(UUID teamId, UUID ticketId, SlaClock c, Instant at, List<SlaClockMoved.Moved> out) {
        moved(ticketId, c, out);
        jdbc.updateExpecting(1, TABLE, "clock write", "INSERT INTO ticket_sla_clock (ticket_id, team_id, " + COLUMNS
                + ", updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (ticket_id, metric) DO UPDATE"
                + " SET state = EXCLUDED.state, target_seconds = EXCLUDED.target_seconds, warn_percent ="
                + " EXCLUDED.warn_percent, used_micros = EXCLUDED.used_micros, running_since = EXCLUDED.running_since,"
                + " due_at = EXCLUDED.due_at, warn_at = EXCLUDED.warn_at, ended_at = EXCLUDED.ended_at, version ="
                + " EXCLUDED.version, warned = EXCLUDED.warned, updated_at = EXCLUDED.updated_at", ticketId, teamId,
                c.metric().name(), c.state().name(), c.target().getSeconds(), c.warnPercent(), micros(c.used()),
                c.runningSince(), c.due(), c.warn(), c.endedAt(), c.version(), c.warned(), at);
    }

    /** Lists {@code c} in the event when it is RUNNING with an instant to escalate at (R59). */
    private static void moved(UUID ticketId, SlaClock c, List<SlaClockMoved.Moved> out) {
        if (c.state() == State.RUNNING && (c.due() != null || c.warn() != null)) {
            out.add(new SlaClockMoved.Moved(ticketId, c.metric(), c.version(), c.warn(), c.due()));
        }
    }

    /**
     * A team-wide re-target (a calendar or policy write): writes every clock of {@code clocks} in ONE statement, the
     * same columns {@link #save} writes. Each of them is a row {@link #unfinished} read and locked in this transaction,
     * so every one exists and is updated; any other count is a bug and throws. At 100 000 tickets (200 000 clocks) one
     * statement per clock made the calendar write take minutes (bench P10).
     */
    private void saveAll(UUID teamId, List<TicketClock> clocks, Instant at, List<SlaClockMoved.Moved> out) {
        for (int from = 0; from < clocks.size(); from += SAVE_CHUNK) {
            saveChunk(teamId, clocks.subList(from, Math.min(clocks.size(), from + SAVE_CHUNK)), at, out);
        }
    }

    /** Clocks per statement of {@link #saveAll}: bounded arrays, whatever the team's size (bench P10). */
    private static final int SAVE_CHUNK = 5_000;

    private void saveChunk(UUID teamId, List<TicketClock> clocks, Instant at, List<SlaClockMoved.Moved> out) {
        int n = clocks.size();
        Object[][] col = new Object[12][n];
        for (int k = 0; k < n; k++) {
            TicketClock tc = clocks.get(k);
            SlaClock c = tc.clock();
            moved(tc.ticketId(), c, out);
            col[0][k] = tc.ticketId();
            col[1][k] = c.metric().name();
            col[2][k] = c.state().name();
            col[3][k] = c.target().getSeconds();
            col[4][k] = c.warnPercent();
            col[5][k] = micros(c.used());
            col[6][k] = text(c.runningSince());
            col[7][k] = text(c.due());
            col[8][k] = text(c.warn());
            col[9][k] = text(c.endedAt());
            col[10][k] = c.version();
            col[11][k] = c.warned();
        }
        jdbc.updateExpecting(n, TABLE, "clock write", "UPDATE ticket_sla_clock c SET state = u.state, target_seconds ="
                + " u.target_seconds, warn_percent = u.warn_percent, used_micros = u.used_micros, running_since ="
                + " u.running_since::timestamptz, due_at = u.due_at::timestamptz, warn_at = u.warn_at::timestamptz,"
                + " ended_at = u.ended_at::timestamptz, version = u.version, warned = u.warned, updated_at = ? FROM"
                + " unnest(?::uuid[], ?::text[], ?::text[], ?::bigint[], ?::integer[], ?::bigint[], ?::text[], ?::text[],"
                + " ?::text[], ?::text[], ?::integer[], ?::boolean[]) AS u(ticket_id, metric, state, target_seconds,"
                + " warn_percent, used_micros, running_since, due_at, warn_at, ended_at, version, warned) WHERE"
                + " c.ticket_id = u.ticket_id AND c.metric = u.metric AND c.team_id = ?", at,
                Jdbc.array("uuid", col[0]), Jdbc.array("text", col[1]), Jdbc.array("text", col[2]),
                Jdbc.array("bigint", col[3]), Jdbc.array("integer", col[4]), Jdbc.array("bigint", col[5]),
                Jdbc.array("text", col[6]), Jdbc.array("text", col[7]), Jdbc.array("text", col[8]),
                Jdbc.array("text", col[9]), Jdbc.array("integer", col[10]), Jdbc.array("boolean", col[11]), teamId);
    }

    /** An instant as the text of a {@code timestamptz} array element (exact to the nanosecond), or null. */
    private static String text(Instant t) {
        return t == null ? null : t.toString();
    }

    private static long micros(Duration d) {
        return d.getSeconds() * 1_000_000L + d.getNano() / 1_000;
    }
}
