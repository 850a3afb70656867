package com.teamdesk.tasks.task.spi;

import java.util.List;

/**
 * What a client (the console) learns of a task kind from the API ({@code GET /api/v1/kinds}, issue 29), so
 * that a new kind shows without a client change.
 *
 * @param kind    the kind's name, as a task's {@code kind}
 * @param label   a short human name, e.g. {@code Digest of open tickets}
 * @param fields  the create body's fields a generic form offers (besides {@code kind}), in order
 * @param actions what a client may offer: {@code create} (a generic form with {@code fields}),
 *                {@code download} (a COMPLETED task's file at {@code /tasks/{id}/result})
 */
public record KindInfo(String kind, String label, List<Field> fields, List<String> actions) {
    /** The {@code create} action. */
    public static final String CREATE = "create";
    /** The {@code download} action. */
    public static final String DOWNLOAD = "download";

    /**
     * One field of a generic create form.
     *
     * @param name    the body's key
     * @param label   a short human name
     * @param choices the values it may take, the first the default; empty for free text
     */
    public record Field(String name, String label, List<String> choices) {
    }
}
