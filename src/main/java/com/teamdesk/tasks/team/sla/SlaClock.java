package com.teamdesk.tasks.team.sla;

import com.teamdesk.tasks.team.calendar.BusinessCalendar;
import java.time.Duration;
import java.time.Instant;

/**
 * Issue 53 (R56): one promise of one ticket — its first response or its resolution — counted in the team's business
 * time. Immutable; every transition returns the next clock with its {@code version} moved by one, which the clock's
 * escalations carry as their fencing token. Pure code: every instant comes from the caller (the database's clock, R37).
 *
 * <p>RUNNING counts from {@code runningSince}; its {@code due} and {@code warn} instants are where the business time
 * left (and left before the warning) runs out on the calendar, or null when that lies beyond the calendar's horizon or
 * the warning has passed already. PAUSED keeps the time used and has no instants. MET and BREACHED are final (a
 * BREACHED clock keeps its {@code due} until it is settled late, for the breach board).
 *
 * @param target      the promise in business time
 * @param warnPercent the warning threshold, in percent of {@code target} (1-99)
 * @param used        business time counted before {@code runningSince} (all of it when not RUNNING)
 * @param warned      its warning was sent (R59): a warning whose instant passed is then not due again
 */
public record SlaClock(Metric metric, State state, Duration target, int warnPercent, Duration used,
        Instant runningSince, Instant due, Instant warn, Instant endedAt, int version, boolean warned) {

    /** What a clock measures. */
    public enum Metric {
        /** Until the first reply by staff. */
        FIRST_RESPONSE,
        /** Until the ticket is CLOSED. */
        RESOLUTION
    }

    /** Where a clock is. */
    public enum State {
        /**
         * RUNNING and PAUSED count; MET and BREACHED are final; CANCELLED is a promise withdrawn (the ticket's priority
         * lost its policy), kept so that a later promise on the same ticket goes on from its version, never reusing one.
         */
        RUNNING, PAUSED, MET, BREACHED, CANCELLED;

        /** @return true for MET and BREACHED: nothing moves it any more */
        public boolean isFinal() {
            return this == MET || this == BREACHED;
        }

        /** @return true for RUNNING and PAUSED: a promise that still counts */
        public boolean isOpen() {
            return this == RUNNING || this == PAUSED;
        }
    }

    /** @return a clock that starts counting {@code target} at {@code now}, version 1 */
    public static SlaClock start(Metric metric, Duration target, int warnPercent, Instant now, BusinessCalendar calendar) {
        return new SlaClock(metric, State.RUNNING, target, warnPercent, Duration.ZERO, now, null, null, null, 0, false)
                .running(now, calendar);
    }

    /** @return the business time used until {@code now} */
    public Duration usedAt(Instant now, BusinessCalendar calendar) {
        return state == State.RUNNING ? used.plus(calendar.between(runningSince, now)) : used;
    }

    /** @return the business time left at {@code now} (negative once due has passed) */
    public Duration leftAt(Instant now, BusinessCalendar calendar) {
        return target.minus(usedAt(now, calendar));
    }

    /** @return the warning threshold in business time */
    public Duration warnAfter() {
        return Duration.ofSeconds(target.getSeconds() * warnPercent / 100);
    }

    /** The ticket went PENDING: the time used so far is kept, nothing is due. A clock not RUNNING is unchanged. */
    public SlaClock pause(Instant now, BusinessCalendar calendar) {
        if (state != State.RUNNING) {
            return this;
        }
        return new SlaClock(metric, State.PAUSED, target, warnPercent, usedAt(now, calendar), null, null, null, null,
                version + 1, warned);
    }

    /** The ticket was reopened: counting again from {@code now}. A clock not PAUSED is unchanged. */
    public SlaClock resume(Instant now, BusinessCalendar calendar) {
        if (state != State.PAUSED) {
            return this;
        }
        return new SlaClock(metric, State.RUNNING, target, warnPercent, used, now, null, null, null, version, warned)
                .running(now, calendar);
    }

    /**
     * A new target or threshold (the ticket's priority or the team's policy changed), or a new calendar: the time used
     * until {@code now} is counted on {@code before}, the rest on {@code after}. A final clock is unchanged.
     */
    public SlaClock retarget(Duration newTarget, int newWarnPercent, Instant now, BusinessCalendar before,
            BusinessCalendar after) {
        if (!state.isOpen()) {
            return this;
        }
        if (state == State.PAUSED) {
            return new SlaClock(metric, state, newTarget, newWarnPercent, used, null, null, null, null, version + 1,
                    warned);
        }
        return new SlaClock(metric, State.RUNNING, newTarget, newWarnPercent, usedAt(now, before), now, null, null,
                null, version, warned).running(now, after);
    }

    /** The promise was kept at {@code now} (a staff reply, the ticket CLOSED). A final clock is unchanged. */
    public SlaClock met(Instant now, BusinessCalendar calendar) {
        if (!state.isOpen()) {
            return this;
        }
        return new SlaClock(metric, State.MET, target, warnPercent, usedAt(now, calendar), null, null, null, now,
                version + 1, warned);
    }

    /** The promise is withdrawn (its ticket's priority has no policy any more). Only an open clock is cancelled. */
    public SlaClock cancel(Instant now, BusinessCalendar calendar) {
        if (!state.isOpen()) {
            return this;
        }
        return new SlaClock(metric, State.CANCELLED, target, warnPercent, usedAt(now, calendar), null, null, null, now,
                version + 1, warned);
    }

    /**
     * A new promise on a ticket whose promise was withdrawn: counting {@code target} from {@code now} again, its version
     * going on from this clock's. Only a CANCELLED clock restarts.
     */
    public SlaClock restart(Duration newTarget, int newWarnPercent, Instant now, BusinessCalendar calendar) {
        if (state != State.CANCELLED) {
            return this;
        }
        return new SlaClock(metric, State.RUNNING, newTarget, newWarnPercent, Duration.ZERO, now, null, null, null,
                version, false).running(now, calendar); // a new promise: its warning not sent yet
    }

    /**
     * The breach's escalation ran: final, broken at {@code now} (its due instant). Its {@code due} is kept, for the
     * breach board, until what it waited for happens late ({@link #settledLate}). Only a RUNNING clock breaches.
     */
    public SlaClock breached(Instant now, BusinessCalendar calendar) {
        if (state != State.RUNNING) {
            return this;
        }
        return new SlaClock(metric, State.BREACHED, target, warnPercent, usedAt(now, calendar), null, due, null, now,
                version + 1, warned);
    }

    /**
     * What a BREACHED promise waited for happened late (the first staff reply, the close): it leaves the breach board
     * ({@code due} cleared); the breach stays on record ({@code endedAt}). Its version does not move: a BREACHED
     * clock's promise broke at {@code version - 1}, which its breach's escalation checks (R59). Any other clock is
     * unchanged.
     */
    public SlaClock settledLate() {
        if (state != State.BREACHED || due == null) {
            return this;
        }
        return new SlaClock(metric, state, target, warnPercent, used, null, null, null, endedAt, version, warned);
    }

    /**
     * R59: the warning's escalation was sent for this clock: not due again however the clock moves. Its version does
     * not move (its breach's escalation stays current).
     */
    public SlaClock markWarned() {
        return warned ? this : new SlaClock(metric, state, target, warnPercent, used, runningSince, due, warn, endedAt,
                version, true);
    }

    /**
     * R59: a change that reaches a RUNNING clock at or after its due instant finds its promise broken: BREACHED at the
     * due instant (as its breach's escalation would have made it), before the change applies. Any other clock, or a
     * RUNNING one not yet due, is unchanged.
     */
    public SlaClock brokenBy(Instant now, BusinessCalendar calendar) {
        return state == State.RUNNING && due != null && !due.isAfter(now) ? breached(due, calendar) : this;
    }

    /** RUNNING from {@code now} with {@link #used} counted: its instants computed, its version moved by one. */
    private SlaClock running(Instant now, BusinessCalendar calendar) {
        Duration left = target.minus(used);
        Instant dueAt = positive(left) ? calendar.plus(now, left).orElse(null) : now;
        Duration beforeWarn = warnAfter().minus(used);
        // a warning whose instant has passed is due now unless it was sent (R59): a change that came after it, before
        // its escalation ran, must not lose it, and one that came after it was sent must not repeat it
        // (none when the promise is due now: its breach says it)
        Instant warnAt = !positive(left) ? null : positive(beforeWarn) ? calendar.plus(now, beforeWarn).orElse(null)
                : warned ? null : now;
        return new SlaClock(metric, State.RUNNING, target, warnPercent, used, now, dueAt, warnAt, null, version + 1,
                warned);
    }

    private static boolean positive(Duration d) {
        return !d.isNegative() && !d.isZero();
    }
}
