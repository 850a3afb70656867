package com.teamdesk.tasks.task.export;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.zone.ZoneRules;
import java.util.HashMap;
import java.util.Map;

/**
 * Formats the export's timestamps exactly as {@link DateTimeFormatter#ISO_OFFSET_DATE_TIME} in the
 * requested zone does, to the second ({@code 2026-11-29T09:02:03+08:00}, {@code ...Z} at offset 0,
 * {@code +05:53:28} for an offset with seconds), as ASCII bytes, without a formatter call per value.
 * The offsets come from the JVM's time-zone rules, the same rules that resolve the filter's dates
 * (issue 16 decision: not PostgreSQL's tzdata, which may be another release). Years outside
 * 1..9999 go through the formatter itself. Not thread-safe; one instance per export.
 */
final class CsvTimestamps {
    /** Longest value written by the fast path: {@code 9999-12-31T23:59:59+05:53:28}. */
    static final int MAX_FAST_LENGTH = 28;

    private final ZoneRules rules;
    private final ZoneOffset fixed;
    private final DateTimeFormatter reference;
    private final Map<ZoneOffset, byte[]> offsetIds = new HashMap<>();

    /** @param zone the export's zone */
    CsvTimestamps(ZoneId zone) {
        this.rules = zone.getRules();
        this.fixed = rules.isFixedOffset() ? rules.getOffset(Instant.EPOCH) : null;
        this.reference = DateTimeFormatter.ISO_OFFSET_DATE_TIME.withZone(zone);
    }

    /**
     * Writes the instant {@code epochSecond} (the value truncated to the second) into {@code buf}.
     *
     * @param buf with at least {@link #MAX_FAST_LENGTH} bytes free from {@code pos}
     * @return the position after the value, or -1 when the value did not fit the fast path: then
     *         {@link #slow(long)} gives it
     */
    int write(long epochSecond, byte[] buf, int pos) {
        ZoneOffset offset = fixed != null ? fixed : rules.getOffset(Instant.ofEpochSecond(epochSecond));
        long local = epochSecond + offset.getTotalSeconds();
        long day = Math.floorDiv(local, 86_400L);
        int secondOfDay = (int) Math.floorMod(local, 86_400L);
        if (day < MIN_FAST_DAY || day > MAX_FAST_DAY) {
            return -1;
        }
        LocalDate date = LocalDate.ofEpochDay(day);
        int p = digits(buf, pos, date.getYear(), 4);
        buf[p++] = '-';
        p = digits(buf, p, date.getMonthValue(), 2);
        buf[p++] = '-';
        p = digits(buf, p, date.getDayOfMonth(), 2);
        buf[p++] = 'T';
        p = digits(buf, p, secondOfDay / 3600, 2);
        buf[p++] = ':';
        p = digits(buf, p, secondOfDay / 60 % 60, 2);
        buf[p++] = ':';
        p = digits(buf, p, secondOfDay % 60, 2);
        byte[] id = offsetIds.computeIfAbsent(offset, o -> o.getId().getBytes(StandardCharsets.US_ASCII));
        System.arraycopy(id, 0, buf, p, id.length);
        return p + id.length;
    }

    /** @return the value through the formatter, for what {@link #write} refused */
    byte[] slow(long epochSecond) {
        return reference.format(Instant.ofEpochSecond(epochSecond)).getBytes(StandardCharsets.US_ASCII);
    }

    private static final long MIN_FAST_DAY = LocalDate.of(1, 1, 1).toEpochDay();
    private static final long MAX_FAST_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

    private static int digits(byte[] buf, int pos, int value, int width) {
        for (int i = pos + width - 1; i >= pos; i--) {
            buf[i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        return pos + width;
    }
}
