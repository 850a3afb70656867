package com.teamdesk.tasks.team.calendar;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * CDI event fired synchronously by {@link TeamCalendars} inside the transaction of a calendar write, under the team
 * lock (issue 53, R57): the team's running SLA clocks are computed again with it, and commit or roll back with it.
 *
 * @param before the calendar until now, or empty when the team had none (every minute counted)
 * @param at     the write's time (the application clock: the database's, R37)
 */
public record CalendarChanged(UUID teamId, Optional<BusinessCalendar> before, BusinessCalendar after, Instant at) {
}
