package com.teamdesk.tasks.team.sla;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.team.Priority;
import java.time.Duration;

/**
 * Issue 53 (R56): one priority's promise — a first response and a resolution within so many business minutes.
 *
 * @param warnPercent the warning, in percent of each target (1-99)
 */
public record SlaPolicy(Priority priority, int firstResponseMinutes, int resolutionMinutes, int warnPercent) {
    /** The table of the teams' policies. */
    static final Jdbc.Table TABLE = Jdbc.Table.of("sla_policy");

    /** @return the target of {@code metric} */
    public Duration target(SlaClock.Metric metric) {
        return Duration.ofMinutes(metric == SlaClock.Metric.FIRST_RESPONSE ? firstResponseMinutes : resolutionMinutes);
    }
}
