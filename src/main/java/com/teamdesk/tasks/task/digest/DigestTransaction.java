package com.teamdesk.tasks.task.digest;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.CoreRejection;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.JdbcTicketReader;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TicketFilter;
import com.teamdesk.tasks.team.TicketRow;
import com.teamdesk.tasks.team.TicketStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A digest's side effects and its completion in ONE JTA transaction begun by the caller ({@code MANDATORY}),
 * as the reminder's (R14): under the team lock it reads the lease (early exit), checks the owner's right to
 * the scope, counts the open tickets in scope and names the oldest few, inserts the notification (unique per
 * task and recipient: a replay adds none), appends a system event {@value #EVENT_KIND}, and completes the
 * task through its execution (the ledger's completion, in this transaction). A lost lease throws {@code LeaseLost}
 * out of the transaction, so the container rolls back the notification and the event with it.
 */
@ApplicationScoped
public class DigestTransaction {
    /** Kind of the system event a digest appends. */
    public static final String EVENT_KIND = "task.digest_sent";
    /** Most ticket titles a digest names. */
    static final int TITLES = 5;
    /** Longest title as a digest quotes it (characters). */
    static final int TITLE_CHARS = 60;

    @Inject
    JdbcTeamWrites team;

    @Inject
    JdbcTicketReader tickets;

    @Inject
    Clock clock;

    /** R36: longest wait for the team lock (PostgreSQL {@code lock_timeout}), in ms. */
    @Inject
    @ConfigProperty(name = "teamdesk.task.digest.lock-timeout-ms", defaultValue = "10000")
    long lockWaitMs;

    /** R36: longest idle pause inside the transaction before PostgreSQL ends it and frees the lock, in ms. */
    @Inject
    @ConfigProperty(name = "teamdesk.task.digest.idle-timeout-ms", defaultValue = "10000")
    long idleMs;

    /**
     * Delivers the digest of the execution's task under its lease, all or nothing.
     *
     * @return the notification's text
     * @throws LeaseLost    the lease no longer matches; rolled back
     * @throws TaskRejected ({@code PERMISSION_LOST}) the owner left the team, or lost staff for a TEAM digest
     */
    @Transactional(TxType.MANDATORY)
    public String apply(Execution ex) {
        BackgroundTask task = ex.task();
        Instant now = clock.instant();
        team.lockTeam(task.teamId(), lockWaitMs, idleMs);
        ex.readUnderLease();
        boolean wholeTeam = task.scope() == TaskScope.TEAM;
        UUID visibleTo = wholeTeam ? null : task.ownerId();
        TicketFilter open = new TicketFilter(EnumSet.of(TicketStatus.OPEN), null, null, null, null, ZoneOffset.UTC);
        JdbcTicketReader.RoleAndCount rc = tickets.roleAndCount(task.teamId(), task.ownerId(), visibleTo, open);
        Role role = rc.role()
                .orElseThrow(() -> new TaskRejected(CoreRejection.PERMISSION_LOST, "owner is no longer a member"));
        if (wholeTeam && !role.isStaff()) {
            throw new TaskRejected(CoreRejection.PERMISSION_LOST, "owner is no longer staff");
        }
        List<TicketRow> oldest = rc.count() == 0 ? List.of()
                : tickets.readBatch(task.teamId(), visibleTo, open, null, null, TITLES);
        String message = message(wholeTeam, rc.count(), oldest);
        boolean added = team.addNotification(task.teamId(), task.ownerId(), task.id(), null, message, now);
        team.appendSystemEvent(task.teamId(), EVENT_KIND, null, task.ownerId(), task.id(),
                Jsons.PROVIDER.createObjectBuilder().add("taskId", task.id().toString()).add("run", task.run())
                        .add("scope", task.scope().name()).add("openTickets", rc.count()).add("delivered", added)
                        .build(), now);
        ex.pause(EnginePausePoint.BEFORE_COMPLETION);
        ex.complete("digest completion", now);
        return message;
    }

    /** @return e.g. {@code Your digest: 2 open tickets (oldest first): "Printer on fire"; "VPN down".} */
    static String message(boolean wholeTeam, long count, List<TicketRow> oldest) {
        String who = wholeTeam ? "Team digest: " : "Your digest: ";
        if (count == 0) {
            return who + "no open tickets.";
        }
        String titles = oldest.stream().map(t -> "\"" + cut(t.title()) + "\"").collect(Collectors.joining("; "));
        long more = count - oldest.size();
        return who + count + " open ticket" + (count == 1 ? "" : "s") + " (oldest first): " + titles
                + (more > 0 ? "; and " + more + " more." : ".");
    }

    private static String cut(String title) {
        String oneLine = title.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= TITLE_CHARS ? oneLine : oneLine.substring(0, TITLE_CHARS) + "\u2026";
    }
}
