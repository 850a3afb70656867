package com.teamdesk.tasks.it.kind;

import com.teamdesk.tasks.task.spi.SpanName;

/** The PROBE kind's own span inside its execution's (R45). */
public enum ProbeSpans implements SpanName {
    /** A probe's work. */
    WORK("probe.work");

    private final String spanName;

    ProbeSpans(String spanName) {
        this.spanName = spanName;
    }

    @Override
    public String spanName() {
        return spanName;
    }
}
