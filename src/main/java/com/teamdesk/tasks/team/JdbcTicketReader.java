package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Reads a team's tickets in keyset order {@code (created_at, id)}, a batch at a time, never all at
 * once (R13). Used by the ticket list API and by the export. Read-only; joins no transaction of
 * its own beyond the caller's. When PostgreSQL cannot answer it throws
 * {@link com.teamdesk.tasks.platform.TableAccessException} (an {@link IllegalStateException}).
 *
 * <p>Over 300 lines: every ticket query shares one filter and visibility builder, so the list, the count
 * and the export's batches can never disagree about which tickets a caller sees.
 */
@ApplicationScoped
public class JdbcTicketReader {

    private static final String ROW_COLUMNS = "t.id, t.team_id, t.title, t.body, t.status, t.priority, t.assignee_id,"
            + " a.username, t.requester_id, r.username, t.created_at, t.updated_at, t.version";

    @Inject
    Jdbc jdbc;

    /**
     * A member's current role in the team and the number of tickets a filter matches, read by one
     * statement in one snapshot: what an export checks before it starts (R13: the owner's permission,
     * then the row limit), one round trip instead of two (issue 16).
     *
     * @param memberId  whose role is read
     * @param visibleTo when not null, only tickets this user requested or is assigned to (SELF scope)
     * @return the role (empty when not a member) and the count
     * @throws IllegalStateException when PostgreSQL cannot answer (an SQL data error as its cause)
     */
    public RoleAndCount roleAndCount(UUID teamId, UUID memberId, UUID visibleTo, TicketFilter filter) {
        Sql sql = new Sql("SELECT (SELECT role FROM membership WHERE team_id = ? AND user_id = ?), count(*) FROM ticket t");
        sql.args.add(teamId);
        sql.args.add(memberId);
        // The filter's values as opaque scalar subqueries: the planner estimates them the same way in every
        // plan, so PostgreSQL keeps the statement's generic plan instead of planning every export's count anew
        // (with the values it found a small team's count cheaper than the generic plan and re-planned each
        // time: ~0.15 ms of PostgreSQL CPU per export, the count's whole cost for a small one; issue 16).
        where(sql, teamId, visibleTo, filter, true);
        return jdbc.query(Tables.TICKET, "ticket count", sql.text.toString(), rs -> {
            String role = rs.getString(1);
            return new RoleAndCount(role == null ? Optional.empty() : Optional.of(Role.valueOf(role)), rs.getLong(2));
        }, sql.bound()).get(0);
    }

    /** A member's role (empty when not a member) and a ticket count, as read together by {@link #roleAndCount}. */
    public record RoleAndCount(Optional<Role> role, long count) {
    }

    /**
     * Reads the next batch after the keyset cursor, ascending by (createdAt, id).
     *
     * @param afterCreatedAt createdAt of the last row of the previous batch, or null for the first
     * @param afterId        id of that row, or null
     * @param limit          batch size (&gt; 0)
     */
    public List<TicketRow> readBatch(UUID teamId, UUID visibleTo, TicketFilter filter, Instant afterCreatedAt,
            UUID afterId, int limit) {
        Sql sql = batch("SELECT " + ROW_COLUMNS + WITH_USERS, teamId, visibleTo, filter, afterCreatedAt, afterId, limit, null);
        return jdbc.query(Tables.TICKET, "ticket read", sql.text.toString(), TICKET_ROW, sql.bound());
    }

    /** The row of {@link #readBatch} and {@link #inTeam}. */
    private static final Jdbc.Row<TicketRow> TICKET_ROW = rs -> new TicketRow(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2),
            rs.getString(3), rs.getString(4), TicketStatus.valueOf(rs.getString(5)), Priority.valueOf(rs.getString(6)),
            Jdbc.uuid(rs, 7), rs.getString(8), Jdbc.uuid(rs, 9), rs.getString(10), Jdbc.offsetDateTime(rs, 11).toInstant(),
            Jdbc.offsetDateTime(rs, 12).toInstant(), rs.getInt(13));

    /**
     * Issue 52: the team's tickets among {@code ids}, in one statement (a batch's reminders are checked together).
     * Who may see each is the caller's business ({@link TeamAccess#canSee}).
     *
     * @return id → ticket, for every id that is a ticket of the team
     */
    public Map<UUID, TicketRow> inTeam(UUID teamId, Collection<UUID> ids) {
        Map<UUID, TicketRow> out = new HashMap<>();
        for (TicketRow t : jdbc.query(Tables.TICKET, "ticket read", "SELECT " + ROW_COLUMNS + WITH_USERS
                + " WHERE t.team_id = ? AND t.id = ANY (?)", TICKET_ROW, teamId, Jdbc.array("uuid", ids.toArray()))) {
            out.put(t.id(), t);
        }
        return out;
    }

    /**
     * The usernames of the given users, for the export's assignee and requester cells (its batches
     * select user ids, not a join per row; issue 16). Users are never deleted, and no API renames one.
     *
     * @param teamId when not null, also every member of this team (one statement for the usual case)
     * @param ids    users wanted besides the members (may be empty)
     * @return id → username, for every id found
     */
    public Map<UUID, String> usernames(UUID teamId, Collection<UUID> ids) {
        Map<UUID, String> out = new HashMap<>();
        for (Map.Entry<UUID, String> e : jdbc.query(Tables.APP_USER, "username read",
                "SELECT u.id, u.username FROM app_user u WHERE u.id = ANY (?)"
                        + " OR u.id IN (SELECT m.user_id FROM membership m WHERE m.team_id = ?)",
                rs -> Map.entry(Jdbc.uuid(rs, 1), rs.getString(2)), Jdbc.array("uuid", ids.toArray()), teamId)) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /**
     * The same keyset batch as {@link #readBatch} (same filter, order and limit) as one SELECT with
     * every argument written as an SQL literal, for {@code COPY (SELECT ...) TO STDOUT}, which takes
     * no bind parameters (the export, R13). Text arguments (the search text) are escaped as
     * {@code E'...'} literals, so the statement is safe whatever the client sent.
     *
     * @param columns the select list, over the alias {@code t} (ticket; no join: the export maps user ids
     *                to usernames itself, {@link #usernames}); without {@code ?}, which marks an argument
     * @param holder  when not null, the batch has no row unless this member still holds its role in the
     *                team, checked by the same statement in the same snapshot as the rows (the export's
     *                permission re-check per batch, R13, without a round trip of its own). An empty batch
     *                is then either the end or a lost permission: the caller tells them apart with a
     *                check of its own after the last batch.
     */
    public String batchQuery(String columns, UUID teamId, UUID visibleTo, TicketFilter filter, Instant afterCreatedAt,
            UUID afterId, int limit, RoleHolder holder) {
        Sql sql = batch("SELECT " + columns + " FROM ticket t", teamId, visibleTo, filter, afterCreatedAt, afterId, limit,
                holder);
        return sql.inline();
    }

    /**
     * A member that must still be in the team for a read to return rows.
     *
     * @param userId the member
     * @param staff  true: must be staff (OWNER or STAFF, {@link Role#isStaff()}); false: any role
     */
    public record RoleHolder(UUID userId, boolean staff) {
    }

    /** {@code role IN (...)} of the staff roles, from {@link Role#isStaff()}. */
    private static final String STAFF_ROLES = Arrays.stream(Role.values()).filter(Role::isStaff)
            .map(r -> "'" + r.name() + "'").collect(Collectors.joining(", ", "m.role IN (", ")"));

    /** The tickets with their assignee ({@code a}, may be all null) and requester ({@code r}). */
    private static final String WITH_USERS = " FROM ticket t"
            + " LEFT JOIN app_user a ON a.id = t.assignee_id JOIN app_user r ON r.id = t.requester_id";

    private static Sql batch(String select, UUID teamId, UUID visibleTo, TicketFilter filter, Instant afterCreatedAt,
            UUID afterId, int limit, RoleHolder holder) {
        Sql sql = where(new Sql(select), teamId, visibleTo, filter, false);
        if (holder != null) {
            sql.and("EXISTS (SELECT 1 FROM membership m WHERE m.team_id = ? AND m.user_id = ?"
                    + (holder.staff() ? " AND " + STAFF_ROLES : "") + ")", teamId, holder.userId());
        }
        if (afterCreatedAt != null) {
            sql.and("(t.created_at, t.id) > (?, ?)", at(afterCreatedAt), afterId);
        }
        sql.text.append(" ORDER BY t.created_at, t.id LIMIT ?");
        sql.args.add(limit);
        return sql;
    }

    /**
     * Appends the tickets' conditions: the team, the SELF scope's visibility and the filter.
     *
     * @param opaque each value as a scalar subquery {@code (SELECT ?::type)} instead of a bare parameter, so
     *               that the planner's estimates (and so the choice between a custom and the generic plan)
     *               do not depend on the values
     */
    private static Sql where(Sql sql, UUID teamId, UUID visibleTo, TicketFilter f, boolean opaque) {
        String uuid = opaque ? "(SELECT ?::uuid)" : "?";
        String time = opaque ? "(SELECT ?::timestamptz)" : "?";
        String text = opaque ? "(SELECT ?::text)" : "?";
        sql.text.append(" WHERE t.team_id = ").append(uuid);
        sql.args.add(teamId);
        if (visibleTo != null) {
            sql.and("(t.requester_id = " + uuid + " OR t.assignee_id = " + uuid + ")", visibleTo, visibleTo);
        }
        if (!f.statuses().isEmpty()) {
            // Cast: a bare String[] would be spread into the varargs as separate parameters.
            // Opaque: cast, or "ANY ((SELECT …))" would be the set form of ANY over the subquery's rows.
            sql.and("t.status = ANY (" + (opaque ? "(SELECT ?::text[])::text[]" : "?") + ")",
                    (Object) f.statuses().stream().map(Enum::name).toArray(String[]::new));
        }
        if (f.assigneeId() != null) {
            sql.and("t.assignee_id = " + uuid, f.assigneeId());
        }
        if (f.createdFrom() != null) {
            sql.and("t.created_at >= " + time, at(f.createdFrom()));
        }
        if (f.createdTo() != null) {
            sql.and("t.created_at < " + time, at(f.createdTo()));
        }
        if (f.q() != null) {
            String like = "%" + f.q().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
            sql.and("(t.title ILIKE " + text + " OR t.body ILIKE " + text + ")", like, like);
        }
        return sql;
    }

    private static OffsetDateTime at(Instant i) {
        return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
    }

    /** A statement under construction: text and positional arguments. */
    private static final class Sql {
        final StringBuilder text;
        final List<Object> args = new ArrayList<>();

        Sql(String head) {
            text = new StringBuilder(head);
        }

        void and(String cond, Object... a) {
            text.append(" AND ").append(cond);
            args.addAll(List.of(a));
        }

        /** @return the arguments for {@link Jdbc#bind}: a {@code String[]} as a {@code text[]} array */
        Object[] bound() {
            Object[] out = args.toArray();
            for (int i = 0; i < out.length; i++) {
                if (out[i] instanceof String[] arr) {
                    out[i] = Jdbc.array("text", arr);
                }
            }
            return out;
        }

        /** @return the statement with each {@code ?} replaced by its argument as an SQL literal */
        String inline() {
            StringBuilder out = new StringBuilder(text.length() + 64 * args.size());
            int arg = 0;
            for (int i = 0; i < text.length(); i++) {
                char ch = text.charAt(i);
                if (ch == '?') {
                    literal(out, args.get(arg++));
                } else {
                    out.append(ch);
                }
            }
            if (arg != args.size()) {
                throw new IllegalStateException(args.size() + " arguments for " + arg + " placeholders");
            }
            return out.toString();
        }

        private static void literal(StringBuilder out, Object a) {
            if (a instanceof UUID u) {
                out.append('\'').append(u).append("'::uuid");
            } else if (a instanceof OffsetDateTime t) {
                out.append('\'').append(timestampLiteral(t.toInstant())).append("'::timestamptz");
            } else if (a instanceof Integer n) {
                out.append(n.intValue());
            } else if (a instanceof String str) {
                stringLiteral(out, str);
            } else if (a instanceof String[] arr) {
                out.append("ARRAY[");
                for (int i = 0; i < arr.length; i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    stringLiteral(out, arr[i]);
                }
                out.append("]::text[]");
            } else {
                throw new IllegalArgumentException("no SQL literal for " + (a == null ? "null" : a.getClass().getName()));
            }
        }
    }

    /**
     * Appends {@code s} as an escape-string literal {@code E'...'}: quotes and backslashes doubled,
     * which reads back as {@code s} whatever {@code standard_conforming_strings} says.
     *
     * @throws IllegalArgumentException when {@code s} holds a NUL character (no PostgreSQL text can)
     */
    static void stringLiteral(StringBuilder out, String s) {
        out.append("E'");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\0') {
                throw new IllegalArgumentException("NUL character in an SQL text argument");
            }
            if (ch == '\'' || ch == '\\') {
                out.append(ch);
            }
            out.append(ch);
        }
        out.append('\'');
    }

    /**
     * @return the instant as PostgreSQL reads a {@code timestamptz} literal, to the microsecond: ISO
     *         8601 in UTC, years before 1 as {@code ... BC} and after 9999 with five or more digits
     */
    static String timestampLiteral(Instant i) {
        OffsetDateTime t = i.atOffset(ZoneOffset.UTC);
        int year = t.getYear();
        String rest = String.format(java.util.Locale.ROOT, "-%02d-%02d %02d:%02d:%02d.%06d+00", t.getMonthValue(),
                t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), t.getNano() / 1000);
        return year >= 1 ? String.format(java.util.Locale.ROOT, "%04d", year) + rest
                : String.format(java.util.Locale.ROOT, "%04d", 1 - year) + rest + " BC";
    }
}
