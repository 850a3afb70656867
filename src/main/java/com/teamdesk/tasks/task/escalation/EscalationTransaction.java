package com.teamdesk.tasks.task.escalation;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.sla.SlaClock;
import com.teamdesk.tasks.team.sla.SlaClocks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * One escalation's side effects and its completion in ONE JTA transaction begun by the caller ({@code MANDATORY}), as
 * the reminder's (R14, R59). When the clock is still this escalation's ({@link EscalationParams#current}: RUNNING at its
 * version, or for a breach BREACHED at the next one by a late change), under the team lock and the clock's row lock it
 * notifies (the warning: the ticket's assignee, or the team's owners when it has none, and the clock remembers it
 * warned; the breach: the owners, and a RUNNING clock becomes BREACHED at its due instant), appends a system event
 * ({@value #WARNING_EVENT} or {@value #BREACH_EVENT}) and completes; otherwise it completes as superseded and writes
 * nothing else. A lost lease throws {@code LeaseLost} out of the transaction, so the container rolls back the
 * notifications, the event, the breach and the warned mark with it.
 */
@ApplicationScoped
public class EscalationTransaction {
    /** Kind of the system event of a warning. */
    public static final String WARNING_EVENT = "sla.warning";
    /** Kind of the system event of a breach. */
    public static final String BREACH_EVENT = "sla.breached";
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT);

    /**
     * What a run did.
     *
     * @param superseded the clock had moved on: nothing but the completion was written
     * @param summary    the task's {@code resultSummary}
     */
    public record Outcome(boolean superseded, String summary) {
    }

    @Inject
    JdbcTeamWrites team;

    @Inject
    SlaClocks clocks;

    @Inject
    Clock clock;

    /**
     * R36: longest wait for the team lock (PostgreSQL {@code lock_timeout}), in ms: 2 min by default, longer than a
     * calendar write of a big team holds it (bench P10: 48 s at 100 000 tickets), so that escalations due meanwhile
     * wait instead of failing their attempts.
     */
    @Inject
    @ConfigProperty(name = "teamdesk.task.sla-escalation.lock-timeout-ms", defaultValue = "120000")
    long lockWaitMs;

    /** R36: longest idle pause inside the transaction before PostgreSQL ends it and frees the lock, in ms. */
    @Inject
    @ConfigProperty(name = "teamdesk.task.sla-escalation.idle-timeout-ms", defaultValue = "10000")
    long idleMs;

    /**
     * Escalates the execution's clock under its lease and the clock's version, all or nothing. A clock that has passed
     * this escalation's version (read without a lock: versions only grow) completes it as superseded without the team
     * lock; else under the team lock the clock is read again {@code FOR UPDATE} and decides.
     *
     * @throws com.teamdesk.tasks.task.spi.LeaseLost the lease no longer matches; rolled back
     * @throws IllegalStateException the run came before its instant (only a hand-made run can): retried
     */
    @Transactional(TxType.MANDATORY)
    public Outcome apply(Execution ex, EscalationParams p) {
        BackgroundTask task = ex.task();
        Instant now = clock.instant();
        Optional<SlaClock> seen = clocks.peek(p.ticketId(), p.metric());
        if (seen.isEmpty() || !p.current(seen.get())) {
            return superseded(ex, p, seen.orElse(null), now);
        }
        team.lockTeam(task.teamId(), lockWaitMs, idleMs);
        ex.readUnderLease();
        Optional<SlaClocks.LockedClock> locked = clocks.lockForEscalation(task.teamId(), p.ticketId(), p.metric());
        SlaClock c = locked.map(SlaClocks.LockedClock::clock).orElse(null);
        if (c == null || !p.current(c)) {
            return superseded(ex, p, c, now);
        }
        boolean breach = p.threshold() == Threshold.BREACH;
        Instant instant = breach ? c.due() : c.warn();
        if (c.state() == SlaClock.State.RUNNING && instant != null && now.plusSeconds(1).isBefore(instant)) {
            throw new IllegalStateException("the escalation ran before its instant " + instant);
        }
        SlaClocks.LockedClock lc = locked.get();
        List<UUID> recipients = breach || lc.assigneeId() == null ? team.ownerIds(task.teamId())
                : List.of(lc.assigneeId());
        if (breach) {
            clocks.breach(task.teamId(), p.ticketId(), c, now); // a clock a change broke already stays as it is
        } else {
            clocks.markWarned(task.teamId(), p.ticketId(), c, now);
        }
        String message = message(p, lc);
        int told = 0;
        for (UUID r : recipients) {
            told += team.addNotification(task.teamId(), r, task.id(), p.ticketId(), message, now) ? 1 : 0;
        }
        team.appendSystemEvent(task.teamId(), breach ? BREACH_EVENT : WARNING_EVENT, p.ticketId(), task.ownerId(),
                task.id(), Jsons.PROVIDER.createObjectBuilder().add("taskId", task.id().toString())
                        .add("metric", p.metric().name()).add("version", p.version())
                        .add("dueAt", c.due() == null ? "" : c.due().toString()).add("told", told).build(), now);
        String summary = (breach ? "Breach" : "Warning") + (recipients.isEmpty() ? " recorded; nobody to tell (the team"
                + " has no owner)." : " sent to " + told + (told == 1 ? " person." : " people.")
                        + (told < recipients.size() ? " " + (recipients.size() - told) + " told before." : ""));
        ex.pause(EnginePausePoint.BEFORE_COMPLETION);
        ex.complete("escalation completion", summary, now);
        return new Outcome(false, summary);
    }

    /** Completes the run without a side effect: the clock moved on (or has no such promise any more). */
    private static Outcome superseded(Execution ex, EscalationParams p, SlaClock c, Instant now) {
        String summary = c == null ? "Superseded: the ticket has no " + p.metric() + " clock."
                : "Superseded: the clock is at version " + c.version() + " (" + c.state()
                        + (c.warned() && p.threshold() == Threshold.WARNING ? ", warned" : "") + "), not "
                        + p.version() + ".";
        ex.pause(EnginePausePoint.BEFORE_COMPLETION);
        ex.complete("escalation completion", summary, now);
        return new Outcome(true, summary);
    }

    /** @return e.g. {@code SLA breached: first response of "VPN down" was due 2027-03-01 15:00 (Asia/Shanghai).} */
    static String message(EscalationParams p, SlaClocks.LockedClock lc) {
        String metric = p.metric().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        String title = lc.title().replaceAll("\\s+", " ").strip();
        if (title.length() > 60) {
            title = title.substring(0, 60) + "\u2026";
        }
        String due = lc.clock().due() == null ? "" : WHEN.format(lc.clock().due().atZone(lc.zone())) + " (" + lc.zone()
                + ")";
        return p.threshold() == Threshold.BREACH
                ? "SLA breached: " + metric + " of \"" + title + "\" was due " + due + "."
                : "SLA warning: " + metric + " of \"" + title + "\" is due " + due + ".";
    }
}
