package com.teamdesk.tasks.task.spi;

/**
 * The name of a span a kind starts inside its execution's (R45), e.g. {@code export.batch}: a kind declares its own
 * in its package (an enum implementing this interface) and asks its {@link Execution#span} for one.
 */
public interface SpanName {
    /** @return the span's name as exported, e.g. {@code reminder.transaction} */
    String spanName();
}
