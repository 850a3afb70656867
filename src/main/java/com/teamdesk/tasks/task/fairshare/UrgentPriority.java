package com.teamdesk.tasks.task.fairshare;

import com.teamdesk.tasks.queue.JobOptions;

/**
 * R42's threshold of urgency, one rule shared by the reserved slots (R42), background CPU (R46) and the database
 * yield (R47): a kind is urgent when its priority (0-10) is at or above {@code teamdesk.worker.reserved-min-priority}
 * clamped into 1-10.
 */
public final class UrgentPriority {

    private UrgentPriority() {
    }

    /** @return {@code configured} lowered or raised into 1-10, the range of {@code teamdesk.worker.reserved-min-priority} */
    public static int clampMinPriority(int configured) {
        return Math.max(JobOptions.MIN_PRIORITY + 1, Math.min(configured, JobOptions.MAX_PRIORITY));
    }

    /**
     * @return whether a kind of {@code kindPriority} (0-10) is urgent: at or above {@code configured}
     *         ({@code teamdesk.worker.reserved-min-priority}) clamped into 1-10
     */
    public static boolean isUrgentPriority(int kindPriority, int configured) {
        return kindPriority >= clampMinPriority(configured);
    }
}
