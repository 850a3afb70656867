package com.teamdesk.tasks.queue;

/**
 * One group of a queue as an operator sees it (issue 30).
 *
 * @param group   the group's name
 * @param waiting its waiting jobs
 * @param cap     the most of its jobs active at once, or null when it has no cap
 * @param active  its active jobs when it has a cap, else null (only capped groups are counted in Redis)
 * @param atCap   true when it has jobs waiting and is at its cap: they wait for one of its own to end
 */
public record GroupInfo(String group, long waiting, Integer cap, Integer active, boolean atCap) {
}
