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
    /**
     * @return true when {@code text} holds at least one character a person can see: not only whitespace,
     *         control and format characters (zero-width space, joiners, BOM), combining marks or blank fillers
     *         (Hangul fillers, the blank braille pattern); a name or title must (issue 49)
     */
    public static boolean visible(String text) {
        if (text == null) {
            return false;
        }
        return text.codePoints().anyMatch(ClientText::visible);
    }

    private static boolean visible(int cp) {
        if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
            return false;
        }
        return switch (Character.getType(cp)) {
            case Character.CONTROL, Character.FORMAT, Character.UNASSIGNED, Character.SURROGATE,
                    Character.NON_SPACING_MARK, Character.ENCLOSING_MARK, Character.COMBINING_SPACING_MARK -> false;
            default -> cp != 0x115F && cp != 0x1160 && cp != 0x3164 && cp != 0xFFA0 && cp != 0x2800;
        };
    }
}
