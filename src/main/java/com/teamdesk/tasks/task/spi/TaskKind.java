package com.teamdesk.tasks.task.spi;

import java.util.regex.Pattern;

/**
 * What a background task does: the name its {@link TaskKindHandler} declares (issue 29: no central list;
 * the kinds are the registered handlers, {@code TaskKinds}). Stored as is in {@code background_task.kind}
 * and sent as is in the API ({@code "EXPORT"}).
 *
 * @param name upper-case letters, digits and {@code _}, starting with a letter, at most 32 characters
 */
public record TaskKind(String name) implements Comparable<TaskKind> {
    private static final Pattern NAME = Pattern.compile("[A-Z][A-Z0-9_]{0,31}");

    /** @throws IllegalArgumentException when {@code name} is not such a name */
    public TaskKind {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a task kind is named by 1-32 upper-case letters, digits or _: " + name);
        }
    }

    /**
     * @return the kind named {@code name} (a stored or registered name: exact)
     * @throws IllegalArgumentException when it is not a valid name
     */
    public static TaskKind of(String name) {
        return new TaskKind(name);
    }

    /** @return {@code text} trimmed and upper-cased as a kind's name (a request's), or null when it cannot be one */
    public static TaskKind parse(String text) {
        String n = com.teamdesk.tasks.common.ClientValues.asciiName(text);
        return n != null && NAME.matcher(n).matches() ? new TaskKind(n) : null;
    }

    @Override
    public int compareTo(TaskKind other) {
        return name.compareTo(other.name);
    }

    /** @return the name, as the API and the database spell it */
    @Override
    public String toString() {
        return name;
    }
}
