package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.task.spi.SpanName;

/** The reminder's spans inside its execution's (R45). */
public enum ReminderSpans implements SpanName {
    /** The reminder's one transaction (R14). */
    TRANSACTION("reminder.transaction");

    private final String spanName;

    ReminderSpans(String spanName) {
        this.spanName = spanName;
    }

    @Override
    public String spanName() {
        return spanName;
    }
}
