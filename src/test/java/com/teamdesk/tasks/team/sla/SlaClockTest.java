package com.teamdesk.tasks.team.sla;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.team.calendar.BusinessCalendar;
import com.teamdesk.tasks.team.calendar.BusinessCalendar.Holiday;
import com.teamdesk.tasks.team.calendar.BusinessCalendar.Shift;
import com.teamdesk.tasks.team.sla.SlaClock.Metric;
import com.teamdesk.tasks.team.sla.SlaClock.State;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** R57's clock transitions on a Berlin calendar of 09:00-17:00 on weekdays: pause, resume, re-target, meet, versions. */
class SlaClockTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final BusinessCalendar WEEKDAYS = weekdays(List.of());

    @Test
    void aPauseKeepsTheTimeUsedAndTheResumeShiftsTheDueInstant() {
        Instant mondayTen = at(2027, 3, 1, 10, 0);
        SlaClock c = SlaClock.start(Metric.RESOLUTION, Duration.ofHours(4), 75, mondayTen, WEEKDAYS);
        assertEquals(State.RUNNING, c.state());
        assertEquals(1, c.version());
        assertEquals(at(2027, 3, 1, 14, 0), c.due());
        assertEquals(at(2027, 3, 1, 13, 0), c.warn(), "75 % of 4 h");

        SlaClock paused = c.pause(at(2027, 3, 1, 12, 0), WEEKDAYS); // PENDING one hour before its warning
        assertEquals(State.PAUSED, paused.state());
        assertEquals(Duration.ofHours(2), paused.used());
        assertNull(paused.due());
        assertNull(paused.warn());
        assertEquals(2, paused.version());
        assertSame(paused, paused.pause(at(2027, 3, 1, 13, 0), WEEKDAYS), "pausing twice changes nothing");

        SlaClock resumed = paused.resume(at(2027, 3, 1, 16, 30), WEEKDAYS); // reopened late on Monday
        assertEquals(3, resumed.version());
        assertEquals(at(2027, 3, 2, 10, 30), resumed.due(), "2 h left: 30 min on Monday, 1 h 30 on Tuesday");
        assertEquals(at(2027, 3, 2, 9, 30), resumed.warn(), "the warning at 3 h of business time, shifted too");
        assertEquals(Duration.ofMinutes(150), resumed.usedAt(at(2027, 3, 1, 17, 0), WEEKDAYS));
    }

    @Test
    void aHolidayAddedWhileRunningMovesTheDueInstantAndTheVersion() {
        Instant fridayTwo = at(2027, 3, 5, 14, 0);
        SlaClock c = SlaClock.start(Metric.FIRST_RESPONSE, Duration.ofHours(4), 50, fridayTwo, WEEKDAYS);
        assertEquals(at(2027, 3, 8, 10, 0), c.due(), "3 h on Friday, 1 h on Monday");
        BusinessCalendar mondayOff = weekdays(List.of(new Holiday(LocalDate.of(2027, 3, 8), LocalDate.of(2027, 3, 8),
                "off")));
        SlaClock moved = c.retarget(c.target(), c.warnPercent(), at(2027, 3, 5, 15, 0), WEEKDAYS, mondayOff);
        assertEquals(at(2027, 3, 9, 10, 0), moved.due());
        assertEquals(Duration.ofHours(1), moved.used(), "the hour before the change counted on the old calendar");
        assertEquals(c.version() + 1, moved.version());
    }

    @Test
    void metAndBreachedAreFinal() {
        SlaClock c = SlaClock.start(Metric.FIRST_RESPONSE, Duration.ofHours(1), 50, at(2027, 3, 1, 9, 0), WEEKDAYS);
        SlaClock met = c.met(at(2027, 3, 1, 9, 20), WEEKDAYS);
        assertEquals(State.MET, met.state());
        assertEquals(Duration.ofMinutes(20), met.used());
        assertEquals(at(2027, 3, 1, 9, 20), met.endedAt());
        assertSame(met, met.resume(at(2027, 3, 2, 9, 0), WEEKDAYS));
        assertSame(met, met.retarget(Duration.ofHours(9), 10, at(2027, 3, 2, 9, 0), WEEKDAYS, WEEKDAYS));
        assertSame(met, met.breached(at(2027, 3, 2, 9, 0), WEEKDAYS));
        SlaClock breached = c.breached(at(2027, 3, 1, 10, 0), WEEKDAYS);
        assertEquals(State.BREACHED, breached.state());
        assertSame(breached, breached.met(at(2027, 3, 1, 11, 0), WEEKDAYS));
        assertEquals(c.due(), breached.due(), "kept for the breach board (R59)");
        assertEquals(Duration.ofHours(1), breached.used());
        SlaClock settled = breached.settledLate();
        assertEquals(State.BREACHED, settled.state());
        assertNull(settled.due(), "kept late: off the board");
        assertEquals(breached.endedAt(), settled.endedAt(), "the breach stays on record");
        assertEquals(breached.version(), settled.version(), "a BREACHED clock broke at version - 1 (R59)");
        assertSame(settled, settled.settledLate());
        assertSame(met, met.settledLate(), "only a breach is settled late");
    }

    /**
     * Found in review (R59): a change after the due instant finds the promise broken (BREACHED at its due instant, not
     * MET late); a warning whose instant passed before it was sent is due at once when the clock runs again, and never
     * again once sent.
     */
    @Test
    void aLateChangeBreaksThePromiseAndAPassedWarningIsSentOnce() {
        SlaClock c = SlaClock.start(Metric.FIRST_RESPONSE, Duration.ofHours(1), 50, at(2027, 3, 1, 9, 0), WEEKDAYS);
        SlaClock late = c.brokenBy(at(2027, 3, 1, 10, 5), WEEKDAYS);
        assertEquals(State.BREACHED, late.state());
        assertEquals(at(2027, 3, 1, 10, 0), late.endedAt(), "broken at its due instant");
        assertEquals(c.version() + 1, late.version());
        assertSame(late, late.met(at(2027, 3, 1, 10, 5), WEEKDAYS), "not met late");
        assertSame(c, c.brokenBy(at(2027, 3, 1, 9, 59), WEEKDAYS), "not due yet");

        SlaClock paused = c.pause(at(2027, 3, 1, 9, 40), WEEKDAYS); // past the 30-minute warning, not sent
        SlaClock resumed = paused.resume(at(2027, 3, 1, 11, 0), WEEKDAYS);
        assertEquals(at(2027, 3, 1, 11, 0), resumed.warn(), "a passed, unsent warning is due at once");
        SlaClock warned = resumed.markWarned();
        assertEquals(resumed.version(), warned.version(), "the breach of this version stays current");
        SlaClock again = warned.pause(at(2027, 3, 1, 11, 5), WEEKDAYS).resume(at(2027, 3, 1, 11, 10), WEEKDAYS);
        assertNull(again.warn(), "sent once: not due again");
        assertTrue(again.warned());
    }

    /** Found in review: a promise withdrawn and made again goes on from its version; no version is used twice. */
    @Test
    void aWithdrawnPromiseRestartsFromItsVersion() {
        SlaClock c = SlaClock.start(Metric.RESOLUTION, Duration.ofHours(8), 75, at(2027, 3, 1, 9, 0), WEEKDAYS);
        SlaClock withdrawn = c.cancel(at(2027, 3, 1, 10, 0), WEEKDAYS);
        assertEquals(State.CANCELLED, withdrawn.state());
        assertEquals(2, withdrawn.version());
        assertNull(withdrawn.due());
        assertSame(withdrawn, withdrawn.met(at(2027, 3, 1, 11, 0), WEEKDAYS), "nothing to meet");
        assertSame(withdrawn, withdrawn.retarget(Duration.ofHours(1), 50, at(2027, 3, 1, 11, 0), WEEKDAYS, WEEKDAYS));
        SlaClock again = withdrawn.restart(Duration.ofHours(2), 50, at(2027, 3, 1, 11, 0), WEEKDAYS);
        assertEquals(State.RUNNING, again.state());
        assertEquals(3, again.version());
        assertEquals(Duration.ZERO, again.used(), "a new promise counts from its start");
        assertEquals(at(2027, 3, 1, 13, 0), again.due());
        assertSame(again, again.restart(Duration.ofHours(9), 50, at(2027, 3, 1, 12, 0), WEEKDAYS), "only CANCELLED");
    }

    @Test
    void aShorterTargetThanTheTimeUsedIsDueAtOnce() {
        SlaClock c = SlaClock.start(Metric.RESOLUTION, Duration.ofHours(8), 75, at(2027, 3, 1, 9, 0), WEEKDAYS);
        Instant noon = at(2027, 3, 1, 12, 0);
        SlaClock urgent = c.retarget(Duration.ofHours(2), 75, noon, WEEKDAYS, WEEKDAYS);
        assertEquals(noon, urgent.due(), "3 h used of a 2 h promise: due now (its breach escalates)");
        assertNull(urgent.warn(), "due now: its breach says it, no warning beside it");
        assertEquals(Duration.ofHours(-1), urgent.leftAt(noon, WEEKDAYS));
    }

    private static Instant at(int y, int m, int d, int h, int min) {
        return ZonedDateTime.of(LocalDateTime.of(y, m, d, h, min), BERLIN).toInstant();
    }

    private static BusinessCalendar weekdays(List<Holiday> holidays) {
        List<Shift> shifts = new ArrayList<>();
        for (DayOfWeek d : List.of(DayOfWeek.MONDAY, DayOfWeek.TUESDAY, DayOfWeek.WEDNESDAY, DayOfWeek.THURSDAY,
                DayOfWeek.FRIDAY)) {
            shifts.add(new Shift(d, LocalTime.of(9, 0), LocalTime.of(17, 0)));
        }
        return new BusinessCalendar(BERLIN, shifts, holidays);
    }
}
