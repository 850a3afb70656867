package com.teamdesk.tasks.task.schedule;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.ledger.LedgerException;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.KeysetCursor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@code task_schedule} and {@code schedule_skip} tables (issue 31): one statement per method, on the
 * caller's transaction when there is one (the container's enlisted connection). SQL errors throw
 * {@link com.teamdesk.tasks.platform.TableAccessException} naming the table, or {@link LedgerException} for the
 * reads of the ledger's {@code background_task}.
 */
@ApplicationScoped
public class ScheduleStore {
    private static final Jdbc.Table SCHEDULES = Jdbc.Table.of("task_schedule");
    private static final Jdbc.Table SKIPS = Jdbc.Table.of("schedule_skip");

    static final String COLUMNS = "id, team_id, owner_id, name, kind, scope, params::text, cron, time_zone, missed_slots,"
            + " overlap, enabled, next_slot_at, last_slot_at, disabled_reason, version, created_by, created_at,"
            + " updated_by, updated_at";

    static final Jdbc.Row<Schedule> ROW = rs -> new Schedule(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2), Jdbc.uuid(rs, 3),
            rs.getString(4), TaskKind.of(rs.getString(5)), TaskScope.valueOf(rs.getString(6)), rs.getString(7),
            rs.getString(8), rs.getString(9), Schedule.MissedSlots.valueOf(rs.getString(10)),
            Schedule.Overlap.valueOf(rs.getString(11)), rs.getBoolean(12), Jdbc.instant(rs, 13), Jdbc.instant(rs, 14),
            rs.getString(15), rs.getInt(16), Jdbc.uuid(rs, 17), Jdbc.instant(rs, 18), Jdbc.uuid(rs, 19),
            Jdbc.instant(rs, 20));

    /**
     * A task or a skipped slot of a schedule, newest first.
     *
     * @param slotAt  the slot, or null for a "run now"
     * @param taskId  the occurrence, or null for a skipped slot
     * @param status  the occurrence's status, or null for a skipped slot
     * @param skipped {@code OVERLAP} or {@code MISSED} for a skipped slot, else null
     * @param detail  for a skipped slot, why in words, else null
     * @param at      when the occurrence was created or the slot skipped
     */
    public record Occurrence(Instant slotAt, UUID taskId, TaskStatus status, String skipped, String detail, Instant at) {
    }

    @Inject
    Jdbc jdbc;

    @Inject
    JdbcTeamWrites team;

    void insert(Schedule s) {
        // the column list without the SELECT's cast (params::text is no column name)
        jdbc.update(SCHEDULES, "insert schedule", "INSERT INTO task_schedule (" + COLUMNS.replace("::text", "") + ") VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?,"
                + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", s.id(), s.teamId(), s.ownerId(), s.name(), s.kind().name(),
                s.scope().name(), s.params(), s.cron(), s.timeZone(), s.missedSlots().name(), s.overlap().name(),
                s.enabled(), s.nextSlotAt(), s.lastSlotAt(), s.disabledReason(), s.version(), s.createdBy(),
                s.createdAt(), s.updatedBy(), s.updatedAt());
    }

    /** @return the schedule, if it exists */
    public Optional<Schedule> find(UUID id) {
        return jdbc.queryOne(SCHEDULES, "schedule read", "SELECT " + COLUMNS + " FROM task_schedule WHERE id = ?", ROW, id);
    }

    /** @return the schedule, locked until the caller's transaction ends */
    Optional<Schedule> lock(UUID id) {
        return jdbc.queryOne(SCHEDULES, "schedule lock", "SELECT " + COLUMNS + " FROM task_schedule WHERE id = ? FOR UPDATE",
                ROW, id);
    }

    /**
     * A team's schedules, newest first, after a keyset position ({@link KeysetCursor}).
     *
     * @param ownerOnly only this owner's (a customer's view), or null for all
     * @param limit     rows to read (the page size + 1)
     */
    List<Schedule> list(UUID teamId, UUID ownerOnly, KeysetCursor after, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM task_schedule WHERE team_id = ?");
        List<Object> args = new java.util.ArrayList<>(List.of(teamId));
        if (ownerOnly != null) {
            sql.append(" AND owner_id = ?");
            args.add(ownerOnly);
        }
        KeysetCursor.appendNewestFirst(sql, args, after == null ? null : after.createdAt(), after == null ? null : after.id(),
                limit);
        return query(sql.toString(), args.toArray());
    }

    /**
     * Every team's schedules for an operator, the due ones first (next slot passed, not materialised yet).
     *
     * @param dueBefore only those due before this instant, or null for all
     */
    List<Schedule> listAll(Instant dueBefore, int limit) {
        if (dueBefore != null) {
            return query("SELECT " + COLUMNS + " FROM task_schedule WHERE enabled AND next_slot_at <= ? ORDER BY"
                    + " next_slot_at, id LIMIT ?", dueBefore, limit);
        }
        return query("SELECT " + COLUMNS + " FROM task_schedule ORDER BY enabled DESC, next_slot_at NULLS LAST, id LIMIT ?",
                limit);
    }

    /**
     * @return how many schedules the team has, after taking the team lock ({@link JdbcTeamWrites#lockTeam}: the
     *         per-team limit holds under races); in the caller's transaction
     */
    int lockTeamAndCount(UUID teamId) {
        team.lockTeam(teamId);
        return jdbc.queryInt(SCHEDULES, "count schedules", "SELECT count(*) FROM task_schedule WHERE team_id = ?", teamId);
    }

    /** Writes every field a member may change, and version + 1. @return false when the version moved on */
    boolean update(Schedule s, int expectedVersion) {
        return jdbc.update(SCHEDULES, "update schedule", "UPDATE task_schedule SET name = ?, kind = ?, scope = ?, params = ?::jsonb,"
                + " cron = ?, time_zone = ?, missed_slots = ?, overlap = ?, enabled = ?, next_slot_at = ?,"
                + " disabled_reason = ?, version = version + 1, updated_by = ?, updated_at = ? WHERE id = ? AND version = ?",
                s.name(), s.kind().name(), s.scope().name(), s.params(), s.cron(), s.timeZone(), s.missedSlots().name(),
                s.overlap().name(), s.enabled(), s.nextSlotAt(), s.disabledReason(), s.updatedBy(), s.updatedAt(), s.id(),
                expectedVersion) == 1;
    }

    /** @return whether it was deleted (its occurrences keep running, unlinked; its skips go with it) */
    boolean delete(UUID id) {
        return jdbc.update(SCHEDULES, "delete schedule", "DELETE FROM task_schedule WHERE id = ?", id) == 1;
    }

    /** @return up to {@code limit} enabled schedules whose next slot is at or before {@code now}, locked, skipping locked ones */
    List<Schedule> lockDue(Instant now, int limit) {
        return query("SELECT " + COLUMNS + " FROM task_schedule WHERE enabled AND next_slot_at <= ? ORDER BY next_slot_at"
                + " LIMIT ? FOR UPDATE SKIP LOCKED", now, limit);
    }

    /** Moves a locked schedule on to its next slot (not a member's change: the version stays). */
    void advance(UUID id, Instant nextSlotAt, Instant lastSlotAt) {
        jdbc.update(SCHEDULES, "advance schedule", "UPDATE task_schedule SET next_slot_at = ?, last_slot_at = ? WHERE id = ?", nextSlotAt,
                lastSlotAt, id);
    }

    /** Disables a schedule for a reason the system found (its owner left the team, its ticket closed); version + 1. */
    void disable(UUID id, String reason, Instant now) {
        jdbc.update(SCHEDULES, "disable schedule", "UPDATE task_schedule SET enabled = false, next_slot_at = NULL, disabled_reason = ?,"
                + " version = version + 1, updated_at = ? WHERE id = ?", reason, now, id);
    }

    /** Records a slot the sweep did not run; drops the schedule's skips older than {@code keepAfter}. */
    void recordSkip(UUID id, Instant slotAt, String reason, String detail, Instant now, Instant keepAfter) {
        jdbc.update(SKIPS, "record skip", "INSERT INTO schedule_skip (schedule_id, slot_at, reason, detail, recorded_at) VALUES"
                + " (?, ?, ?, ?, ?) ON CONFLICT (schedule_id, slot_at) DO NOTHING", id, slotAt, reason, detail, now);
        jdbc.update(SKIPS, "trim skips", "DELETE FROM schedule_skip WHERE schedule_id = ? AND recorded_at < ?", id, keepAfter);
    }

    /** @return the slot of an occurrence of the schedule that is still WAITING or RUNNING, if any (R41 overlap) */
    Optional<Instant> openOccurrence(UUID id) {
        return jdbc.queryOne(LedgerException.TABLE, "open occurrence", "SELECT coalesce(slot_at, created_at)"
                + " FROM background_task WHERE schedule_id = ? AND status IN ('WAITING', 'RUNNING') LIMIT 1",
                rs -> Jdbc.instant(rs, 1), id);
    }

    /** @return the schedule's last {@code limit} occurrences and skipped slots, newest first */
    public List<Occurrence> occurrences(UUID id, int limit) {
        return jdbc.query(LedgerException.TABLE, "occurrences", "(SELECT slot_at, id, status, NULL AS"
                + " skipped, NULL AS detail, created_at AS at FROM background_task WHERE schedule_id = ?"
                + " ORDER BY created_at DESC LIMIT ?) UNION ALL (SELECT slot_at, NULL, NULL, reason, detail, recorded_at"
                + " FROM schedule_skip WHERE schedule_id = ? ORDER BY recorded_at DESC LIMIT ?) ORDER BY at DESC LIMIT ?",
                rs -> new Occurrence(Jdbc.instant(rs, 1), Jdbc.uuid(rs, 2),
                        rs.getString(3) == null ? null : TaskStatus.valueOf(rs.getString(3)), rs.getString(4),
                        rs.getString(5), Jdbc.instant(rs, 6)), id, limit, id, limit, limit);
    }

    /**
     * Disables the enabled schedules of a team whose kind and parameter match (a reminder's ticket), for a reason.
     *
     * @return the ids disabled
     */
    public List<UUID> disableWhere(UUID teamId, TaskKind kind, String param, String value, String reason, Instant now) {
        return jdbc.query(SCHEDULES, "disable schedules", "UPDATE task_schedule SET enabled ="
                + " false, next_slot_at = NULL, disabled_reason = ?, version = version + 1, updated_at = ? WHERE team_id = ?"
                + " AND kind = ? AND enabled AND params ->> ? = ? RETURNING id", rs -> Jdbc.uuid(rs, 1), reason, now, teamId,
                kind.name(), param, value);
    }

    private List<Schedule> query(String sql, Object... args) {
        return jdbc.query(SCHEDULES, "schedule query", sql, ROW, args);
    }
}
