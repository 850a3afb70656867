package com.teamdesk.tasks.task.spi;

import io.opentelemetry.api.trace.Span;

/** Starts spans inside the current one (the execution's, R45); the engine's tracing implements it. */
@FunctionalInterface
public interface ChildSpans {
    /** No tracing: every span is {@link Span#getInvalid()} (no object made, every call a no-op). */
    ChildSpans NONE = name -> Span.getInvalid();

    /**
     * @param name the span's name
     * @return the span, to {@link Span#end()}; {@link Span#getInvalid()} while tracing is off
     */
    Span child(String name);
}
