/**
 * Issue 53 (R55): a team's working time. {@link com.teamdesk.tasks.team.calendar.BusinessCalendar} is the business
 * time arithmetic (pure code, no clock), {@link com.teamdesk.tasks.team.calendar.TeamCalendars} stores a team's
 * calendar and decides who may read and set it, {@link com.teamdesk.tasks.team.calendar.HolidayImport} reads holidays
 * from an iCalendar file with iCal4j. Depends on {@code team} (access, roles), never the other way.
 */
package com.teamdesk.tasks.team.calendar;
