/**
 * Recurring tasks (issue 31, R41): a team's schedules ({@code task_schedule}), their slots in their time zone through
 * DST ({@link com.teamdesk.tasks.task.schedule.CronSlots}), the members' and operators' changes
 * ({@link com.teamdesk.tasks.task.schedule.ScheduleService}, the transaction boundary), and the dispatch sweep's
 * step that makes each due slot one task ({@link com.teamdesk.tasks.task.schedule.ScheduleMaterializer}).
 */
package com.teamdesk.tasks.task.schedule;
