package com.teamdesk.tasks.task.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import com.teamdesk.tasks.common.InvalidInputException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The slots of a schedule (issue 31, R41): the instants its cron expression names in its time zone. The
 * expression (standard 5-field Unix cron: minute hour day-of-month month day-of-week, names and ranges as in
 * crontab(5), day-of-month and day-of-week ORed when both are restricted; or one of {@code @hourly},
 * {@code @daily}/{@code @midnight}, {@code @weekly}, {@code @monthly}, {@code @yearly}/{@code @annually}) is parsed
 * and matched against wall-clock times by cron-utils; this class maps each matching wall-clock time to one
 * instant in the zone, by the rule of R41:
 * <ul>
 * <li>a wall-clock time that does not exist (the hour skipped when the clocks spring forward) fires once, at the
 * end of the gap (02:30 on a day New York skips 02:00-03:00 fires at 03:00 EDT); several such times fire once;
 * <li>a wall-clock time that happens twice (the hour repeated when the clocks fall back) fires once, at its first
 * occurrence (01:30 EDT, not again at 01:30 EST): a slot is a wall-clock time, and each fires once.
 * </ul>
 * Immutable and thread-safe.
 */
public final class CronSlots {
    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final Map<String, String> NICKNAMES = Map.of("@hourly", "0 * * * *", "@daily", "0 0 * * *",
            "@midnight", "0 0 * * *", "@weekly", "0 0 * * 0", "@monthly", "0 0 1 * *", "@yearly", "0 0 1 1 *",
            "@annually", "0 0 1 1 *");
    /** What an expression may hold: ASCII digits and letters, the separators of crontab(5), '@' of a nickname. */
    private static final java.util.regex.Pattern CRON_CHARACTERS = java.util.regex.Pattern.compile("[0-9A-Za-z*/,@ \t-]+");
    /** Day names in crontab(5)'s order, SUN = 0. */
    private static final String DAYS = "SUNMONTUEWEDTHUFRISAT";
    /** Longest expression accepted, characters. */
    public static final int MAX_LENGTH = 200;
    /** How far ahead a slot is looked for: an expression with none within it (Feb 30) is refused. */
    private static final int SEARCH_YEARS = 5;

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime execution;

    private CronSlots(String expression, ZoneId zone, ExecutionTime execution) {
        this.expression = expression;
        this.zone = zone;
        this.execution = execution;
    }

    /**
     * Parses a schedule's expression and zone.
     *
     * @param expression 5-field Unix cron or a nickname (see the class)
     * @param timeZone   an IANA zone id such as {@code Asia/Shanghai} (also {@code UTC})
     * @return the slots
     * @throws InvalidInputException {@code schedule.cron_invalid} (not a 5-field expression, or one that never
     *                               fires), {@code schedule.too_frequent} (a seconds field: more often than once a
     *                               minute), {@code schedule.zone_invalid} (not an IANA zone id)
     */
    public static CronSlots parse(String expression, String timeZone) {
        ZoneId zone = zone(timeZone);
        if (expression == null || expression.isBlank() || expression.length() > MAX_LENGTH) {
            throw new InvalidInputException("schedule.cron_invalid",
                    "cron must be a 5-field cron expression (minute hour day-of-month month day-of-week) or @daily,"
                            + " @weekly, @monthly, at most " + MAX_LENGTH + " characters.");
        }
        if (!CRON_CHARACTERS.matcher(expression).matches()) {
            // cron-utils reads any Unicode digit as a number; crontab(5) knows ASCII digits and names only
            throw new InvalidInputException("schedule.cron_invalid", "cron may hold only ASCII digits, names (MON, JAN),"
                    + " '*', ',', '-', '/', spaces and tabs, or be @daily, @weekly, @monthly.");
        }
        String text = expression.strip();
        String fields = NICKNAMES.getOrDefault(text.toLowerCase(Locale.ROOT), text);
        String[] parts = fields.split("[ \t]+");
        int count = parts.length;
        if (count == 6 || count == 7) {
            throw new InvalidInputException("schedule.too_frequent", "cron has " + count + " fields: seconds are not"
                    + " supported, a schedule fires at most once a minute (5 fields: minute hour day-of-month month"
                    + " day-of-week).");
        }
        if (count == 5) {
            parts[4] = numericDaysOfWeek(parts[4]);
            fields = String.join(" ", parts);
        }
        ExecutionTime execution;
        try {
            execution = ExecutionTime.forCron(PARSER.parse(fields).validate());
        } catch (RuntimeException e) {
            throw new InvalidInputException("schedule.cron_invalid", "cron is not a valid 5-field cron expression"
                    + " (minute hour day-of-month month day-of-week), e.g. \"0 9 * * MON\" or @daily.");
        }
        CronSlots slots = new CronSlots(text, zone, execution);
        if (slots.nextAfter(Instant.now()) == null) {
            throw new InvalidInputException("schedule.cron_invalid", "cron never fires in the next " + SEARCH_YEARS
                    + " years (a date that does not exist?).");
        }
        return slots;
    }

    /**
     * The day-of-week field with its names as numbers, as crontab(5) reads them: SUN is 0 where it starts a range or
     * stands alone, and 7 where it ends a range, so {@code SUN-SAT} is {@code 0-6}, {@code SUN-MON} is {@code 0-1} and
     * {@code MON-SUN} is {@code 1-7} (cron-utils reads SUN as 7 everywhere, which refused the first two; issue 49).
     * Anything else is left as it is, for the parser to judge.
     */
    static String numericDaysOfWeek(String field) {
        StringBuilder out = new StringBuilder();
        for (String item : field.split(",", -1)) {
            if (out.length() > 0) {
                out.append(',');
            }
            int slash = item.indexOf('/');
            String range = slash < 0 ? item : item.substring(0, slash);
            String step = slash < 0 ? "" : item.substring(slash);
            int dash = range.indexOf('-');
            if (dash < 0) {
                out.append(day(range, false));
            } else {
                out.append(day(range.substring(0, dash), false)).append('-').append(day(range.substring(dash + 1), true));
            }
            out.append(step);
        }
        return out.toString();
    }

    private static String day(String name, boolean endOfRange) {
        int i = DAYS.indexOf(name.toUpperCase(Locale.ROOT));
        if (name.length() != 3 || i < 0 || i % 3 != 0) {
            return name;
        }
        int n = i / 3;
        return Integer.toString(n == 0 && endOfRange ? 7 : n);
    }

    /**
     * @return the zone of an IANA id
     * @throws InvalidInputException ({@code schedule.zone_invalid}) when it is not one
     */
    public static ZoneId zone(String timeZone) {
        if (timeZone == null || timeZone.isBlank() || timeZone.length() > 64 || !timeZone.matches("[A-Za-z0-9/_+-]+")) {
            throw new InvalidInputException("schedule.zone_invalid", "timeZone must be an IANA time zone such as"
                    + " Europe/Berlin or UTC.");
        }
        try {
            ZoneId zone = ZoneId.of(timeZone);
            if (!java.time.ZoneId.getAvailableZoneIds().contains(zone.getId())) {
                // an offset form such as GMT+8 or UTC+01:00: no region, so no daylight saving rules
                throw new DateTimeException("not a region id: " + timeZone);
            }
            return zone;
        } catch (DateTimeException e) {
            throw new InvalidInputException("schedule.zone_invalid", "timeZone is not a known IANA time zone;"
                    + " use one such as Europe/Berlin, America/New_York or UTC.");
        }
    }

    /** @return the expression as given (trimmed) */
    public String expression() {
        return expression;
    }

    /** @return the zone */
    public ZoneId zone() {
        return zone;
    }

    /**
     * @return the first slot strictly after {@code after}, or null when there is none within 5 years
     */
    public Instant nextAfter(Instant after) {
        LocalDateTime wall = LocalDateTime.ofInstant(after, zone);
        LocalDateTime horizon = wall.plusYears(SEARCH_YEARS);
        while (wall.isBefore(horizon)) {
            // cron-utils matches wall-clock times: it is given them as UTC times, which have no DST
            Optional<ZonedDateTime> next = execution.nextExecution(wall.atZone(ZoneOffset.UTC));
            if (next.isEmpty()) {
                return null;
            }
            wall = next.get().toLocalDateTime();
            Instant at = instantOf(wall);
            if (at.isAfter(after)) {
                return at;
            }
            // a wall-clock time already past: the second pass of a repeated hour, or a gap's end already fired
        }
        return null;
    }

    /** @return the next {@code n} slots strictly after {@code after} (fewer when the expression runs out) */
    public List<Instant> next(Instant after, int n) {
        List<Instant> out = new ArrayList<>(n);
        Instant at = after;
        while (out.size() < n) {
            at = nextAfter(at);
            if (at == null) {
                break;
            }
            out.add(at);
        }
        return out;
    }

    /** R41: the one instant of a wall-clock time in the zone (a gap's end, or a repeated time's first occurrence). */
    Instant instantOf(LocalDateTime wall) {
        ZoneRules rules = zone.getRules();
        List<ZoneOffset> offsets = rules.getValidOffsets(wall);
        if (offsets.size() == 1) {
            return wall.toInstant(offsets.get(0));
        }
        ZoneOffsetTransition t = rules.getTransition(wall);
        if (offsets.isEmpty()) {
            return t.getInstant(); // spring forward: the first instant after the gap
        }
        return wall.toInstant(t.getOffsetBefore()); // fall back: the first occurrence
    }

    /** @return the wall-clock time of an instant in the zone, with its offset (for people) */
    public ZonedDateTime local(Instant at) {
        return at.atZone(zone);
    }

    @Override
    public String toString() {
        return expression + " " + zone;
    }
}
