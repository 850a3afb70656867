package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.RefusedAt;
import com.teamdesk.tasks.team.JdbcTicketReader;
import com.teamdesk.tasks.team.TeamAccess;
import com.teamdesk.tasks.team.Ticket;
import com.teamdesk.tasks.team.TicketRow;
import com.teamdesk.tasks.team.TicketService;
import com.teamdesk.tasks.team.TicketStatus;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The REMINDER kind (R14): notifications about a ticket to its assignee or the team's staff.
 * Request {@code {kind, ticketId, message, recipients?, runAt?}}; the parameters are
 * {@link ReminderParams}. The scope follows the caller's role: TEAM for staff and owners, SELF for
 * a customer (who may only remind about tickets they see).
 *
 * <p>A run: the claim happened outside the team lock (in the processor); here the whole chain runs
 * in {@link ReminderTransaction}, inside a transaction begun by {@link Transactions} on this worker
 * thread (an EJB {@code REQUIRES_NEW} boundary: the only kind Payara enlists connections in on these
 * threads, docs/reminders.md), then progress 100 is reported to the queue (R12: if only that report
 * fails, the ledger stays COMPLETED).
 */
@ApplicationScoped
public class ReminderHandler implements TaskKindHandler<ReminderParams> {

    @Inject
    ReminderTransaction transaction;

    @Inject
    Transactions transactions;

    @Inject
    TicketService tickets;

    /** Issue 52: a batch's tickets in one read. */
    @Inject
    JdbcTicketReader ticketRows;

    @Inject
    @ConfigProperty(name = "teamdesk.task.reminder.timeout-ms", defaultValue = "60000")
    long timeoutMs;

    /** This kind: a reminder about a ticket to its assignee or the team's staff (R14). */
    public static final TaskKind KIND = TaskKind.of("REMINDER");

    @Override
    public TaskKind kind() {
        return KIND;
    }

    /** Issue 30: a reminder is late the moment a customer notices it, so it goes before its team's exports (0). */
    @Override
    public int priority() {
        return 5;
    }

    @Override
    public List<RequestField> requestFields() {
        return List.of(RequestField.text("ticketId").asRequired().withSchema("""
                        {"type": "string", "format": "uuid", "description": "The ticket, open, of the task's team"}"""),
                RequestField.text("message").asRequired().withSchema("""
                        {"type": "string", "minLength": 1, "maxLength": %d, "description": "What the recipients read"}"""
                        .formatted(ReminderParams.MAX_MESSAGE)),
                RequestField.text("recipients").withSchema("""
                        {"type": "string", "enum": ["ASSIGNEE", "TEAM_STAFF"], "default": "ASSIGNEE"}"""));
    }

    /**
     * @throws InvalidInputException ({@code reminder.invalid}) a bad ticketId, message or recipients;
     *                               ({@code reminder.ticket_closed}) the ticket is closed;
     *                               ({@code reminder.no_assignee}) ASSIGNEE of a ticket without one
     * @throws NotFoundException     ({@code ticket.not_found}) the ticket is not in the team or not
     *                               visible to the caller
     */
    @Override
    public Accepted<ReminderParams> accept(NewTaskRequest request, Caller caller) {
        ReminderParams p = ReminderParams.validate(request.text("ticketId"), request.text("message"),
                request.text("recipients"));
        Ticket ticket = tickets.get(caller.userId(), caller.teamId(), p.ticketId());
        checkRemindable(p, ticket.getStatus(), ticket.getAssigneeId());
        return new Accepted<>(caller.role().isStaff() ? TaskScope.TEAM : TaskScope.SELF, p);
    }

    /**
     * The ticket's part of {@link #accept}: an open ticket, with an assignee when the assignee is to be reminded.
     *
     * @throws InvalidInputException ({@code reminder.ticket_closed}) the ticket is closed; ({@code reminder.no_assignee})
     *                               ASSIGNEE of a ticket without one
     */
    private static void checkRemindable(ReminderParams p, TicketStatus status, UUID assigneeId) {
        if (status == TicketStatus.CLOSED) {
            throw new InvalidInputException("reminder.ticket_closed", "The ticket is closed.");
        }
        if (p.recipients() == ReminderParams.Recipients.ASSIGNEE && assigneeId == null) {
            throw new InvalidInputException("reminder.no_assignee", "The ticket has no assignee to remind.");
        }
    }

    /**
     * Issue 52: {@link #accept} of a batch's reminders with ONE read of their tickets (the caller's role is the one the
     * batch was checked with), the same refusals in the same order of checks.
     */
    @Override
    public List<Accepted<ReminderParams>> acceptAll(List<NewTaskRequest> requests, Caller caller) {
        List<ReminderParams> params = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            NewTaskRequest r = requests.get(i);
            try {
                params.add(ReminderParams.validate(r.text("ticketId"), r.text("message"), r.text("recipients")));
            } catch (InvalidInputException e) {
                throw new RefusedAt(i, e);
            }
        }
        Map<UUID, TicketRow> found = ticketRows.inTeam(caller.teamId(),
                params.stream().map(ReminderParams::ticketId).collect(Collectors.toSet()));
        TaskScope scope = caller.role().isStaff() ? TaskScope.TEAM : TaskScope.SELF;
        List<Accepted<ReminderParams>> out = new ArrayList<>(requests.size());
        for (int i = 0; i < params.size(); i++) {
            ReminderParams p = params.get(i);
            TicketRow t = found.get(p.ticketId());
            if (t == null || !TeamAccess.canSee(caller.role(), caller.userId(), t.requesterId(), t.assigneeId())) {
                throw new RefusedAt(i, new NotFoundException("ticket.not_found", "No ticket " + p.ticketId()
                        + " in this team."));
            }
            try {
                checkRemindable(p, t.status(), t.assigneeId());
            } catch (InvalidInputException e) {
                throw new RefusedAt(i, e);
            }
            out.add(new Accepted<>(scope, p));
        }
        return out;
    }

    /**
     * Issue 31: a reminder schedule resumes only while its ticket is open (closing the ticket disabled it).
     *
     * @throws ConflictException ({@code reminder.ticket_closed}) the ticket is closed
     * @throws NotFoundException ({@code ticket.not_found}) the ticket is gone or not visible to the owner
     */
    @Override
    public void checkResumable(String stored, Caller owner) {
        ReminderParams p = load(stored);
        if (tickets.get(owner.userId(), owner.teamId(), p.ticketId()).getStatus() == TicketStatus.CLOSED) {
            throw new ConflictException("reminder.ticket_closed", "The ticket is closed: reopen it before resuming the"
                    + " schedule or running it now.");
        }
    }

    @Override
    public String store(ReminderParams params) {
        return params.toJson();
    }

    /** @throws TaskRejected ({@code INVALID_REMINDER}: "the reminder parameters are not valid") */
    @Override
    public ReminderParams load(String stored) {
        return TaskRejected.unlessInvalid(ReminderRejection.INVALID_REMINDER, () -> ReminderParams.fromJson(stored));
    }

    @Override
    public void run(Execution execution, ReminderParams params) {
        // R45: the transaction is a span inside the execution's (a no-op span while tracing is off)
        Span span = execution.span(ReminderSpans.TRANSACTION);
        try {
            transactions.inNewTransaction(TxSite.WORKER,
                    () -> transaction.apply(execution, params));
        } catch (RuntimeException e) {
            if (span.isRecording()) {
                span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            }
            throw e;
        } finally {
            span.end();
        }
        execution.reportCompletedToQueue();
    }

    /** @return {@code teamdesk.task.reminder.timeout-ms} (default 1 min, R26) */
    @Override
    public Duration runTimeout() {
        return Duration.ofMillis(timeoutMs);
    }
}
