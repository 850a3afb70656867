package com.teamdesk.tasks.common;

import jakarta.json.JsonNumber;
import jakarta.json.JsonValue;
import java.util.Locale;

/**
 * Scalars a client sends, read strictly (issue 49): a number is ASCII digits and is taken only when it fits, never
 * wrapped or truncated; a name (a kind, a status, a role) is ASCII and matched without locale-dependent case
 * folds. The JDK's own readers are lenient in both ways: {@code Integer.parseInt} takes any Unicode decimal
 * digit ({@code "\u0665"} is 5) and a leading {@code +}, {@code JsonNumber.intValue()} keeps the low 32 bits
 * ({@code 4294967297} is 1), and {@code toUpperCase} folds {@code "ı"} and {@code "ſ"} into {@code I} and
 * {@code S}. Each method returns null for input it does not take; the caller refuses it with its own code.
 */
public final class ClientValues {
    private ClientValues() {
    }

    /**
     * @param text an optional minus and 1-10 ASCII digits (surrounding ASCII whitespace is ignored)
     * @return the value, or null when the text is anything else or outside the {@code int} range
     */
    public static Integer intOf(String text) {
        Long v = longOf(text, 10);
        return v == null || v < Integer.MIN_VALUE || v > Integer.MAX_VALUE ? null : Integer.valueOf(v.intValue());
    }

    /**
     * @param text an optional minus and 1-18 ASCII digits (surrounding ASCII whitespace is ignored)
     * @return the value, or null when the text is anything else
     */
    public static Long longOf(String text) {
        return longOf(text, 18);
    }

    private static Long longOf(String text, int maxDigits) {
        if (text == null) {
            return null;
        }
        String t = text.trim();
        int start = t.startsWith("-") ? 1 : 0;
        int digits = t.length() - start;
        if (digits < 1 || digits > maxDigits) {
            return null;
        }
        long v = 0;
        for (int i = start; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            v = v * 10 + (c - '0');
        }
        return start == 1 ? -v : v;
    }

    /**
     * @return the JSON value as an {@code int} when it is an integral number (no fraction, no exponent) in the
     *         {@code int} range; null for anything else, JSON null and absence included
     */
    public static Integer intOf(JsonValue v) {
        if (!(v instanceof JsonNumber n) || !n.isIntegral()) {
            return null;
        }
        try {
            return n.intValueExact();
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /**
     * A name to match against constants that are upper-case ASCII (enum names, kind names).
     *
     * @return the name trimmed and upper-cased in ASCII only, or null when it holds a character outside
     *         printable ASCII (so {@code "dıgest"} and {@code "DIGEſT"} match nothing)
     */
    public static String asciiName(String name) {
        if (name == null) {
            return null;
        }
        String t = name.trim();
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return null;
            }
        }
        return t.toUpperCase(Locale.ROOT);
    }

    /**
     * @return the constant of {@code type} named {@code name} ({@link #asciiName}: ASCII, any case), or null
     */
    public static <E extends Enum<E>> E enumOf(Class<E> type, String name) {
        String n = asciiName(name);
        if (n == null) {
            return null;
        }
        for (E c : type.getEnumConstants()) {
            if (c.name().equals(n)) {
                return c;
            }
        }
        return null;
    }

    /**
     * For fields that take a constant exactly as declared (issue 53's weekdays and priorities): no case folding.
     *
     * @return the constant of {@code type} named exactly {@code name}, or null
     */
    public static <E extends Enum<E>> E exactEnumOf(Class<E> type, String name) {
        for (E c : type.getEnumConstants()) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }
}
