package com.teamdesk.tasks.common;

/**
 * Client input quoted in an error detail. A detail may name the value it refused, but never
 * carries unbounded or unprintable input back (or into the log).
 */
public final class ClientText {
    /** Longest piece of client input quoted in a detail, in characters. */
    public static final int MAX_ECHO = 64;

    private ClientText() {
    }

    /**
     * @param input the client's text, or null
     * @return at most {@value #MAX_ECHO} characters of it (then an ellipsis), control characters and
     *         surrogates replaced by '?'; "null" for null
     */
    public static String echo(String input) {
        if (input == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(Math.min(input.length(), MAX_ECHO + 1));
        for (int i = 0; i < input.length() && b.length() < MAX_ECHO; i++) {
            char c = input.charAt(i);
            b.append(Character.isISOControl(c) || Character.isSurrogate(c) ? '?' : c);
        }
        return input.length() > MAX_ECHO ? b + "\u2026" : b.toString();
    }
}
