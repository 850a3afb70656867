/**
 * Live progress (issue 14): committed ledger changes announced by PostgreSQL ({@code pg_notify} from a
 * trigger on {@code background_task}, delivered at commit) and read by ONE listening connection per
 * server instance ({@link com.teamdesk.tasks.task.live.TaskChangeListener}), which fans them out in memory
 * to the event streams of the web layer.
 */
package com.teamdesk.tasks.task.live;
