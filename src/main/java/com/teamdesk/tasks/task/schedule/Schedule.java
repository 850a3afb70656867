package com.teamdesk.tasks.task.schedule;

import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import java.time.Instant;
import java.util.UUID;

/**
 * One {@code task_schedule} row (issue 31, R41): a team's recurring task.
 *
 * @param name           for people, 1-200 characters
 * @param params         the kind's validated parameters as JSON text, as a task stores them
 * @param cron           the cron expression ({@link CronSlots})
 * @param timeZone       its IANA zone
 * @param missedSlots    what the sweep does with slots that passed while no sweep ran
 * @param overlap        what it does with a slot while the previous occurrence is still WAITING or RUNNING
 * @param enabled        false while paused (or disabled: {@code disabledReason})
 * @param nextSlotAt     the next slot to materialise, null while not enabled
 * @param lastSlotAt     the last slot materialised or skipped, else null
 * @param disabledReason why the system disabled it (its reminder's ticket closed, its owner left the team), else
 *                       null
 * @param version        the If-Match version, + 1 on every change by a member or an operator
 */
public record Schedule(UUID id, UUID teamId, UUID ownerId, String name, TaskKind kind, TaskScope scope, String params,
                       String cron, String timeZone, MissedSlots missedSlots, Overlap overlap, boolean enabled,
                       Instant nextSlotAt, Instant lastSlotAt, String disabledReason, int version, UUID createdBy,
                       Instant createdAt, UUID updatedBy, Instant updatedAt) {

    /** What the sweep does with the slots that passed while no sweep ran (every instance down, dispatch paused). */
    public enum MissedSlots {
        /** one occurrence, for the latest of them (default) */
        RUN_ONCE,
        /** none: only a slot the sweep reaches on time runs */
        SKIP
    }

    /** What the sweep does with a slot while the previous occurrence is still WAITING or RUNNING. */
    public enum Overlap {
        /** no occurrence; the slot is recorded as skipped with the reason (default) */
        SKIP,
        /** the occurrence is created anyway and waits its turn */
        QUEUE
    }

    /** @return the slots of its expression in its zone */
    public CronSlots slots() {
        return CronSlots.parse(cron, timeZone);
    }
}
