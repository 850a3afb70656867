package com.teamdesk.tasks.it.kind;

import com.teamdesk.tasks.task.spi.PausePoint;

/** The PROBE kind's own pause point. */
public enum ProbePausePoint implements PausePoint {
    /** Inside its span, before it rejects or completes. */
    PROBE_WORKING
}
