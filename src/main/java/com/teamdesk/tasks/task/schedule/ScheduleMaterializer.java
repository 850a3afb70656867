package com.teamdesk.tasks.task.schedule;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.team.SystemEventService;
import com.teamdesk.tasks.team.TeamAccess;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Issue 31 (R41): the dispatch sweep's first step on every instance. Each due schedule (enabled, next slot at
 * or before now, by the ledger's clock) is locked ({@code FOR UPDATE SKIP LOCKED}: one instance handles it, the
 * others skip it), and in that one transaction its slot becomes a task and its next slot is written: a task whose
 * identity {@code (schedule_id, slot_at)} is unique, WAITING and not yet dispatched, which the same tick's dispatch
 * step hands to the queue (or the next tick's, after a kill -9 in between). Two instances, a restart between the
 * slot and the sweep, a sweep run twice: one task per slot.
 *
 * <p>The slots that passed while no sweep ran (every instance down, dispatch paused) are one run of missed slots:
 * {@link Schedule.MissedSlots#RUN_ONCE} makes one task for the latest of them, {@link Schedule.MissedSlots#SKIP}
 * none unless the latest is on time (within {@code teamdesk.schedule.misfire-grace-s}, default 120 s, of its
 * slot); never a burst. A slot whose previous occurrence is still WAITING or RUNNING is skipped with the reason
 * ({@link Schedule.Overlap#SKIP}) or queued ({@link Schedule.Overlap#QUEUE}). Skipped slots are recorded in
 * {@code schedule_skip}. A schedule whose owner left the team, or whose kind or expression this version no longer
 * knows, is disabled with the reason and a system event {@value #DISABLED_EVENT}.
 */
@ApplicationScoped
public class ScheduleMaterializer implements com.teamdesk.tasks.task.sweep.DueTaskSource {
    private static final Logger LOG = Logger.getLogger(ScheduleMaterializer.class.getName());
    /** System event of a schedule the system disabled. */
    public static final String DISABLED_EVENT = "schedule.disabled";
    /** Most slots walked through for one run of missed ones (~70 days of a schedule every minute). */
    static final int MAX_WALK = 100_000;

    @Inject
    ScheduleStore store;
    @Inject
    JdbcTaskLedger ledger;
    @Inject
    TaskKinds kinds;
    @Inject
    TeamAccess access;
    @Inject
    SystemEventService events;
    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "teamdesk.schedule.misfire-grace-s", defaultValue = "120")
    long graceS;

    @Inject
    @ConfigProperty(name = "teamdesk.schedule.skip-retention-days", defaultValue = "30")
    long skipRetentionDays;

    /**
     * One batch: materialises up to {@code limit} due schedules in the caller's transaction.
     *
     * @return the schedules handled
     */
    @Override
    @Transactional(TxType.MANDATORY)
    public int materializeDue(int limit) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        List<Schedule> due = store.lockDue(now, limit);
        for (Schedule s : due) {
            materialize(s, now);
        }
        return due.size();
    }

    private void materialize(Schedule s, Instant now) {
        if (access.roleOf(s.teamId(), s.ownerId()).isEmpty()) {
            disable(s, "Its owner is no longer a member of the team.", now);
            return;
        }
        if (!kinds.kinds().contains(s.kind())) {
            disable(s, "Its kind " + s.kind().name() + " is not offered any more.", now);
            return;
        }
        CronSlots slots;
        try {
            slots = s.slots();
        } catch (InvalidInputException e) {
            disable(s, "Its cron expression or time zone is not valid any more: " + e.getMessage(), now);
            return;
        }
        Instant first = s.nextSlotAt();
        Instant latest = first;
        Instant beforeLatest = first;
        int due = 1;
        Instant after;
        while (true) {
            after = slots.nextAfter(latest);
            if (after == null || after.isAfter(now) || due >= MAX_WALK) {
                break;
            }
            beforeLatest = latest;
            latest = after;
            due++;
        }
        if (after != null && !after.isAfter(now)) {
            after = slots.nextAfter(now); // walked MAX_WALK slots: the rest of the run is skipped too
        }
        boolean onTime = Duration.between(latest, now).getSeconds() <= graceS;
        Instant run = s.missedSlots() == Schedule.MissedSlots.SKIP && !onTime ? null : latest;
        int missed = run == null ? due : due - 1;
        Instant keepAfter = now.minus(Duration.ofDays(skipRetentionDays));
        if (missed > 0) {
            store.recordSkip(s.id(), first, "MISSED", missed + " slot(s) from " + first + " to "
                    + (run == null ? latest : beforeLatest) + " passed while no sweep ran"
                    + (run == null ? "." : "; ran once, for " + latest + "."), now, keepAfter);
        }
        if (run != null) {
            occur(s, run, now, keepAfter);
        }
        if (after == null) {
            disable(s, "Its cron expression has no slot in the next 5 years.", now);
        } else {
            store.advance(s.id(), after, latest);
        }
    }

    private void occur(Schedule s, Instant slot, Instant now, Instant keepAfter) {
        if (s.overlap() == Schedule.Overlap.SKIP) {
            var open = store.openOccurrence(s.id());
            if (open.isPresent()) {
                store.recordSkip(s.id(), slot, "OVERLAP", "The occurrence of " + open.get()
                        + " was still waiting or running.", now, keepAfter);
                return;
            }
        }
        UUID id = UUID.randomUUID();
        boolean created = ledger.insertOccurrence(id, s.kind(), s.teamId(), s.ownerId(), s.scope(), s.params(), s.id(),
                slot, now).isPresent();
        LOG.fine(() -> "schedule.occurrence " + s.id() + " slot " + slot + (created ? ": task " + id : ": had its task"));
    }

    private void disable(Schedule s, String reason, Instant now) {
        store.disable(s.id(), reason, now);
        events.append(s.teamId(), DISABLED_EVENT, null, null, Jsons.PROVIDER.createObjectBuilder()
                .add("scheduleId", s.id().toString()).add("reason", reason).build(), now);
        LOG.info(() -> "schedule.disabled " + s.id() + ": " + reason);
    }
}
