package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.EnlistmentGuard;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.ClientValues;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.Page;
import com.teamdesk.tasks.common.PreconditionFailedException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Application service of tickets: the transaction boundary of every ticket operation of the API,
 * with authorization through {@link TeamAccess}. A non-member gets 404 for anything of the team;
 * a customer sees (and may change) only tickets they requested or are assigned to, others answer
 * 404 as if missing. Assignment and priority are triage: only STAFF and OWNER set them (403
 * {@code ticket.staff_only} otherwise).
 *
 * <p>Why one class of about 360 lines: a ticket's change, its reply and its creation share one authorization rule
 * (who may see it), one lock (the team's) and one event of what moved (for its SLA clocks, R57); a reply service of
 * its own would repeat the first two.
 */
@ApplicationScoped
@Transactional
public class TicketService {
    /** Longest accepted title, in characters (after trimming). */
    public static final int MAX_TITLE = 200;
    /** Longest accepted body, in characters. */
    public static final int MAX_BODY = 20_000;

    @PersistenceContext(unitName = "teamdesk")
    EntityManager em;

    @Inject
    TeamAccess access;

    @Inject
    JdbcTicketReader reader;

    @Inject
    Clock clock;

    @Inject
    EnlistmentGuard enlistment;

    @Inject
    Event<TicketClosed> ticketClosed;

    @Inject
    JdbcTeamWrites teamWrites;

    @Inject
    Event<TicketChanged> ticketChanged;

    @Inject
    Jdbc jdbc;

    /** Longest accepted reply, in characters. */
    public static final int MAX_REPLY = MAX_BODY;

    /**
     * Opens a ticket requested by the caller: OPEN, version 1.
     *
     * @return the persisted ticket
     * @throws NotFoundException     ({@code team.not_found}) the caller is not a member
     * @throws ForbiddenException    ({@code ticket.staff_only}) a customer set priority or assignee
     * @throws InvalidInputException ({@code ticket.invalid}) bad title, body, priority or assignee
     *                               id; ({@code ticket.assignee_invalid}) the assignee is not a
     *                               STAFF/OWNER member of the team
     */
    public Ticket create(UUID callerId, UUID teamId, TicketDraft draft) {
        Role role = access.requireMember(teamId, callerId);
        if (draft == null) {
            throw invalid("A JSON body is required.");
        }
        if (!role.isStaff() && (draft.priority() != null || draft.assigneeId() != null)) {
            throw staffOnly();
        }
        String title = title(draft.title());
        String body = body(draft.body());
        Priority priority = draft.priority() == null ? Priority.NORMAL : priority(draft.priority());
        UUID assignee = assignee(teamId, draft.assigneeId());
        Ticket t = new Ticket(UUID.randomUUID(), teamId, title, body, priority, assignee, callerId, now());
        em.persist(t);
        em.flush();
        ticketChanged.fire(new TicketChanged(teamId, t.getId(), t.getStatus(), t.getStatus(), t.getPriority(), true,
                false, false, t.getCreatedAt()));
        return t;
    }

    /**
     * A reply on a ticket by whoever may see it (issue 53, R57): staff and owners answer, a customer adds to their
     * request. A customer's reply on a PENDING ticket (waiting on them) reopens it: OPEN, its version moved. Takes the
     * team lock first, as a change does.
     *
     * @return the reply as stored
     * @throws NotFoundException     not a member, or the ticket is not visible
     * @throws InvalidInputException ({@code ticket.reply_invalid}) an empty or over-long body
     */
    public TicketReply reply(UUID callerId, UUID teamId, UUID ticketId, String body) {
        enlistment.verify(TxSite.REQUEST);
        teamWrites.lockTeam(teamId);
        Role role = access.requireMember(teamId, callerId);
        Ticket t = visibleTicket(role, callerId, teamId, ticketId);
        String text = body == null ? "" : body;
        if (!ClientText.visible(text.strip()) || text.codePointCount(0, text.length()) > MAX_REPLY) {
            throw new InvalidInputException("ticket.reply_invalid", "body must be 1 to " + MAX_REPLY
                    + " characters of text.");
        }
        Instant now = now();
        TicketReply reply = new TicketReply(UUID.randomUUID(), ticketId, callerId, role.isStaff(), text, now);
        jdbc.updateExpecting(1, Tables.TICKET_REPLY, "reply insert", "INSERT INTO ticket_reply (id, ticket_id,"
                + " author_id, from_staff, body, created_at) VALUES (?, ?, ?, ?, ?, ?)", reply.id(), ticketId, callerId,
                reply.fromStaff(), text, now);
        TicketStatus before = t.getStatus();
        if (!role.isStaff() && before == TicketStatus.PENDING) {
            t.setStatus(TicketStatus.OPEN); // the customer answered: the ticket waits on the team again
            t.touch(now);
            em.flush();
        }
        ticketChanged.fire(new TicketChanged(teamId, ticketId, t.getStatus(), before, t.getPriority(), false, false,
                role.isStaff(), now));
        return reply;
    }

    /**
     * @return the ticket's replies, oldest first, at most {@code limit} after the cursor
     * @throws NotFoundException not a member, or the ticket is not visible
     */
    public Page<TicketReply> replies(UUID callerId, UUID teamId, UUID ticketId, Integer limitParam, String cursor) {
        Role role = access.requireMember(teamId, callerId);
        visibleTicket(role, callerId, teamId, ticketId);
        int limit = Page.limit(limitParam);
        KeysetCursor after = KeysetCursor.decode(cursor);
        List<TicketReply> rows = jdbc.query(Tables.TICKET_REPLY, "replies read", "SELECT id, ticket_id, author_id,"
                + " from_staff, body, created_at FROM ticket_reply WHERE ticket_id = ? AND (?::timestamptz IS NULL OR"
                + " (created_at, id) > (?::timestamptz, ?::uuid)) ORDER BY created_at, id LIMIT ?", TicketReply.ROW,
                ticketId, after == null ? null : after.createdAt(), after == null ? null : after.createdAt(),
                after == null ? null : after.id(), limit + 1);
        return KeysetCursor.page(rows, limit, TicketReply::createdAt, TicketReply::id);
    }

    /**
     * One page of the team's tickets the caller may see, oldest first (keyset order
     * {@code (createdAt, id)}).
     *
     * @throws NotFoundException     the caller is not a member
     * @throws InvalidInputException ({@code filters.invalid}) a bad filter; ({@code page.limit},
     *                               {@code page.cursor}) a bad limit or cursor
     */
    public Page<TicketRow> list(UUID callerId, UUID teamId, TicketQuery query) {
        Role role = access.requireMember(teamId, callerId);
        int limit = Page.limit(query.limit());
        KeysetCursor after = KeysetCursor.decode(query.cursor());
        TicketFilter filter = TicketFilter.of(statuses(query.statuses()), query.assigneeId(), query.createdFrom(),
                query.createdTo(), query.q(), ZoneOffset.UTC);
        UUID visibleTo = role.isStaff() ? null : callerId;
        List<TicketRow> rows = reader.readBatch(teamId, visibleTo, filter, after == null ? null : after.createdAt(),
                after == null ? null : after.id(), limit + 1);
        return KeysetCursor.page(rows, limit, TicketRow::createdAt, TicketRow::id);
    }

    /**
     * @return the ticket, when the caller may see it
     * @throws NotFoundException ({@code team.not_found}) not a member; ({@code ticket.not_found})
     *                           missing, of another team, or not visible to a customer
     */
    public Ticket get(UUID callerId, UUID teamId, UUID ticketId) {
        Role role = access.requireMember(teamId, callerId);
        return visibleTicket(role, callerId, teamId, ticketId);
    }

    /** {@code expectedVersion} of {@code If-Match: *}: any current version matches. */
    public static final int ANY_VERSION = -1;
    /** {@code expectedVersion} when If-Match held no strong validator: nothing matches (412). */
    public static final int NO_VERSION = -2;

    /**
     * Changes a ticket if its version is still {@code expectedVersion} (the client's If-Match),
     * bumping the version by one when anything changed. Takes the team lock first
     * ({@link JdbcTeamWrites#lockTeam}), the lock the reminder
     * transaction takes (R14), so a PATCH and a reminder's version bump never interleave, and
     * memberships are read under it.
     *
     * @param expectedVersion the version the client last read; {@link #ANY_VERSION} for
     *                        {@code If-Match: *}, {@link #NO_VERSION} when If-Match named only weak
     *                        validators (never satisfied, RFC 9110 §13.1.1)
     * @return the ticket after the change (unchanged, same version, when nothing differed)
     * @throws NotFoundException           not a member, or the ticket is not visible
     * @throws PreconditionFailedException ({@code ticket.version_mismatch}) the ticket changed
     *                                     since the client read it
     * @throws ForbiddenException          ({@code ticket.staff_only}) a customer changed priority
     *                                     or assignee
     * @throws InvalidInputException       ({@code ticket.invalid}, {@code ticket.assignee_invalid})
     *
     * <p>Closing the ticket fires {@link TicketClosed} in this transaction: its WAITING reminders
     * are cancelled with it (R24).
     */
    public Ticket patch(UUID callerId, UUID teamId, UUID ticketId, int expectedVersion, TicketChanges changes) {
        enlistment.verify(TxSite.REQUEST);
        // The team lock (R14). A missing team locks nothing; membership answers 404.
        teamWrites.lockTeam(teamId);
        Role role = access.requireMember(teamId, callerId);
        Ticket t = visibleTicket(role, callerId, teamId, ticketId);
        if (expectedVersion == NO_VERSION) {
            throw new PreconditionFailedException("ticket.version_mismatch",
                    "If-Match named no strong version; a weak validator (W/\"…\") never matches.");
        }
        if (expectedVersion != ANY_VERSION && t.getVersion() != expectedVersion) {
            throw new PreconditionFailedException("ticket.version_mismatch", "The ticket changed since you read it:"
                    + " it is at version " + t.getVersion() + ", If-Match said " + expectedVersion + ".");
        }
        if (changes == null) {
            throw invalid("A JSON body is required.");
        }
        if (!role.isStaff() && (changes.priority() != null || changes.assigneeIdSet())) {
            throw staffOnly();
        }
        boolean changed = false;
        TicketStatus statusBefore = t.getStatus();
        Priority priorityBefore = t.getPriority();
        if (changes.title() != null) {
            String title = title(changes.title());
            changed |= !title.equals(t.getTitle());
            t.setTitle(title);
        }
        if (changes.body() != null) {
            String body = body(changes.body());
            changed |= !body.equals(t.getBody());
            t.setBody(body);
        }
        boolean closing = false;
        if (changes.status() != null) {
            TicketStatus status = status(changes.status());
            closing = status == TicketStatus.CLOSED && t.getStatus() != TicketStatus.CLOSED;
            changed |= status != t.getStatus();
            t.setStatus(status);
        }
        if (changes.priority() != null) {
            Priority priority = priority(changes.priority());
            changed |= priority != t.getPriority();
            t.setPriority(priority);
        }
        if (changes.assigneeIdSet()) {
            UUID assignee = assignee(teamId, changes.assigneeId());
            changed |= !Objects.equals(assignee, t.getAssigneeId());
            t.setAssigneeId(assignee);
        }
        if (changed) {
            t.touch(now());
            em.flush();
        }
        if (closing) {
            // R24: the ticket's waiting reminders are cancelled in this same transaction.
            ticketClosed.fire(new TicketClosed(teamId, ticketId, callerId, t.getUpdatedAt()));
        }
        if (t.getStatus() != statusBefore || t.getPriority() != priorityBefore) {
            // R57: its SLA clocks move in this same transaction, under the team lock
            ticketChanged.fire(new TicketChanged(teamId, ticketId, t.getStatus(), statusBefore, t.getPriority(), false,
                    t.getPriority() != priorityBefore, false, t.getUpdatedAt()));
        }
        return t;
    }

    /** @return now at PostgreSQL's precision, so an answer shows what a later read returns */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private Ticket visibleTicket(Role role, UUID callerId, UUID teamId, UUID ticketId) {
        Ticket t = ticketId == null ? null : em.find(Ticket.class, ticketId);
        if (t == null || !t.getTeamId().equals(teamId)
                || !TeamAccess.canSee(role, callerId, t.getRequesterId(), t.getAssigneeId())) {
            throw new NotFoundException("ticket.not_found", "No ticket " + ticketId + " in this team.");
        }
        return t;
    }

    private UUID assignee(UUID teamId, String assigneeId) {
        if (assigneeId == null) {
            return null;
        }
        UUID id;
        try {
            id = UUID.fromString(assigneeId.trim());
        } catch (IllegalArgumentException e) {
            throw invalid("assigneeId must be a UUID.");
        }
        if (!access.roleOf(teamId, id).map(Role::isStaff).orElse(false)) {
            throw new InvalidInputException("ticket.assignee_invalid",
                    "The assignee must be a STAFF or OWNER member of the team.");
        }
        return id;
    }

    private static Set<TicketStatus> statuses(List<String> names) {
        Set<TicketStatus> out = EnumSet.noneOf(TicketStatus.class);
        if (names != null) {
            for (String n : names) {
                for (String part : n.split(",")) {
                    if (!part.isBlank()) {
                        out.add(TicketFilter.parseStatus(part));
                    }
                }
            }
        }
        return out;
    }

    private static String title(String title) {
        String t = title == null ? "" : title.strip();
        if (!ClientText.visible(t) || t.codePointCount(0, t.length()) > MAX_TITLE) {
            throw invalid("title must be 1 to " + MAX_TITLE + " characters.");
        }
        return t;
    }

    private static String body(String body) {
        String b = body == null ? "" : body;
        if (b.codePointCount(0, b.length()) > MAX_BODY) {
            throw invalid("body must be at most " + MAX_BODY + " characters.");
        }
        return b;
    }

    private static Priority priority(String name) {
        Priority p = ClientValues.enumOf(Priority.class, name);
        if (p == null) {
            throw invalid("priority '" + ClientText.echo(name) + "' is not one of LOW, NORMAL, HIGH, URGENT.");
        }
        return p;
    }

    private static TicketStatus status(String name) {
        TicketStatus s = ClientValues.enumOf(TicketStatus.class, name);
        if (s == null) {
            throw invalid("status '" + ClientText.echo(name) + "' is not one of OPEN, PENDING, CLOSED.");
        }
        return s;
    }

    private static InvalidInputException invalid(String detail) {
        return new InvalidInputException("ticket.invalid", detail);
    }

    private static ForbiddenException staffOnly() {
        return new ForbiddenException("ticket.staff_only", "Only staff and owners set a ticket's priority or assignee.");
    }
}
