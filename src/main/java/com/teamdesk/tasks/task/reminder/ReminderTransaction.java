package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.CoreRejection;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.team.JdbcTeamWrites.LockedTicket;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TeamAccess;
import com.teamdesk.tasks.team.TicketStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R14: the reminder's side effects and the task's completion in ONE container-managed JTA
 * transaction, which the caller begins through {@link com.teamdesk.tasks.platform.Transactions}
 * ({@code MANDATORY} here: without it the writes would commit one by one). This class only orders
 * the team's operations ({@link JdbcTeamWrites}, each joining this transaction) and keeps the
 * lease gate: under the team lock it inserts the notification(s) (unique per task and recipient),
 * bumps the ticket's {@code version}, appends a system event, and completes the task with a
 * lease-checked transition of the ledger (asked of the {@link Execution}). When that UPDATE does
 * not match exactly one row, {@code LeaseLost} is thrown OUT of the transaction so that the
 * container rolls back all four writes: returning normally would commit them. The lease read made earlier under the lock is only an early exit;
 * it never replaces the check at commit.
 */
@ApplicationScoped
public class ReminderTransaction {

    /** Kind of the system event appended by a reminder. */
    public static final String EVENT_KIND = "ticket.reminder_sent";

    @Inject
    JdbcTeamWrites team;

    @Inject
    TeamAccess access;

    @Inject
    Clock clock;

    /** Issue 28: longest wait for the team lock (PostgreSQL {@code lock_timeout}), in ms. */
    @Inject
    @ConfigProperty(name = "teamdesk.reminder.lock-timeout-ms", defaultValue = "10000")
    long lockWaitMs;

    /**
     * Issue 28: longest idle pause inside the reminder's transaction before PostgreSQL ends the session and
     * releases the team lock ({@code idle_in_transaction_session_timeout}), in ms.
     */
    @Inject
    @ConfigProperty(name = "teamdesk.reminder.idle-timeout-ms", defaultValue = "10000")
    long idleMs;

    /**
     * Applies the reminder of the execution's task under its lease, all or nothing; the execution reads the lease,
     * reaches the pause points and completes the run (the ledger's transition, in this transaction).
     *
     * @return how many notifications were inserted
     * @throws LeaseLost    the lease no longer matches (early read or completion count != 1); rolled back
     * @throws TaskRejected the ticket is gone or closed, nobody to notify, or the owner lost permission;
     *                      rolled back
     */
    @Transactional(TxType.MANDATORY)
    public int apply(Execution ex, ReminderParams params) {
        BackgroundTask task = ex.task();
        Instant now = clock.instant();
        team.lockTeam(task.teamId(), lockWaitMs, idleMs);
        ex.readUnderLease();
        ex.pause(ReminderPausePoint.REMINDER_AFTER_LEASE_READ);

        Role ownerRole = access.roleOf(task.teamId(), task.ownerId())
                .orElseThrow(() -> new TaskRejected(CoreRejection.PERMISSION_LOST, "owner is no longer a member"));
        LockedTicket ticket = team.lockTicket(params.ticketId(), task.teamId())
                .orElseThrow(() -> new TaskRejected(ReminderRejection.TICKET_GONE, "ticket " + params.ticketId()));
        if (ticket.status() == TicketStatus.CLOSED) {
            throw new TaskRejected(ReminderRejection.TICKET_CLOSED, "ticket " + params.ticketId());
        }
        if (task.scope() == TaskScope.TEAM ? !ownerRole.isStaff()
                : !TeamAccess.canSee(ownerRole, task.ownerId(), ticket.requesterId(), ticket.assigneeId())) {
            throw new TaskRejected(CoreRejection.PERMISSION_LOST, "owner may no longer see the ticket");
        }
        List<UUID> recipients = recipients(params, task.teamId(), ticket);
        int inserted = 0;
        for (UUID recipient : recipients) {
            if (team.addNotification(task.teamId(), recipient, task.id(), params.ticketId(), params.message(), now)) {
                inserted++;
            }
        }
        team.bumpVersion(params.ticketId(), now);
        team.appendSystemEvent(task.teamId(), EVENT_KIND, params.ticketId(), task.ownerId(), task.id(),
                Jsons.PROVIDER.createObjectBuilder().add("taskId", task.id().toString()).add("run", task.run())
                        .add("recipients", recipients.size()).add("message", params.message()).build(), now);
        ex.pause(ReminderPausePoint.REMINDER_AFTER_EVENT_INSERT);
        ex.pause(ReminderPausePoint.REMINDER_BEFORE_COMPLETE);
        complete(ex, now);
        ex.pause(ReminderPausePoint.REMINDER_AFTER_COMPLETE);
        return inserted;
    }

    /**
     * The lease-checked completion, inside the transaction. Throws {@code LeaseLost} on a count
     * other than 1 so the container rolls back (R14). Protected only so that a test can prove that
     * a variant which returns here instead would commit the side effects.
     */
    protected void complete(Execution ex, Instant now) {
        ex.complete("reminder completion", now);
    }

    private List<UUID> recipients(ReminderParams p, UUID teamId, LockedTicket ticket) {
        List<UUID> out;
        if (p.recipients() == ReminderParams.Recipients.ASSIGNEE) {
            out = ticket.assigneeId() == null ? List.of() : List.of(ticket.assigneeId());
        } else {
            out = team.staffIds(teamId);
        }
        if (out.isEmpty()) {
            throw new TaskRejected(ReminderRejection.NO_RECIPIENTS, "nobody to notify");
        }
        return out;
    }
}
