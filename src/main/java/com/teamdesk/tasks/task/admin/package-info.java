/**
 * The operator view of the task engine (issue 14, {@code /api/v1/admin}): overview figures, workers,
 * queue counts, timers with pause/resume/run-now, tasks across teams and bulk retry; every action is
 * written to the system event log with the operator as actor.
 */
package com.teamdesk.tasks.task.admin;
