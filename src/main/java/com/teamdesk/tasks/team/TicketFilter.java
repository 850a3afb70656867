package com.teamdesk.tasks.team;

import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.InvalidInputException;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Validated filters over a team's tickets, shared by the ticket list and the export (R13).
 * A date without time ({@code 2026-11-01}) is a whole day in {@code timeZone}: {@code createdFrom}
 * from its start, {@code createdTo} up to its end. Bounds are half-open: {@code [from, to)}.
 *
 * @param statuses   statuses to keep; empty = all
 * @param assigneeId only tickets assigned to this user, or null
 * @param createdFrom inclusive lower bound of {@code created_at}, or null
 * @param createdTo  exclusive upper bound of {@code created_at}, or null
 * @param q          case-insensitive text searched in title and body (1-200 chars), or null
 * @param timeZone   zone for dates given without time and for export timestamps (default UTC)
 */
public record TicketFilter(Set<TicketStatus> statuses, UUID assigneeId, Instant createdFrom, Instant createdTo,
        String q, ZoneId timeZone) {

    /** Longest accepted search text. */
    public static final int MAX_Q = 200;
    /** Earliest instant a date filter or page cursor may name (PostgreSQL's range is far wider). */
    public static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");
    /** Latest instant a date filter or page cursor may name: the end of year 9999. */
    public static final Instant MAX_INSTANT = Instant.parse("9999-12-31T23:59:59.999999Z");

    private static final Set<String> KEYS = Set.of("status", "assigneeId", "createdFrom", "createdTo", "q");

    /** @return no filter, UTC */
    public static TicketFilter none() {
        return new TicketFilter(EnumSet.noneOf(TicketStatus.class), null, null, null, null, ZoneOffset.UTC);
    }

    /**
     * Parses and validates filters from the API's JSON object.
     *
     * @param filters  the {@code filters} object, or null for none
     * @param timeZone an IANA zone id or offset, or null for UTC
     * @throws InvalidInputException ({@code filters.invalid}) naming the first bad field; unknown
     *                               keys are refused rather than silently ignored
     */
    public static TicketFilter fromJson(JsonObject filters, String timeZone) {
        ZoneId zone = zone(timeZone);
        if (filters == null) {
            return new TicketFilter(EnumSet.noneOf(TicketStatus.class), null, null, null, null, zone);
        }
        for (String key : filters.keySet()) {
            if (!KEYS.contains(key)) {
                throw invalid("unknown filter '" + ClientText.echo(key) + "'; allowed: status, assigneeId, createdFrom, createdTo, q");
            }
        }
        Set<TicketStatus> statuses = EnumSet.noneOf(TicketStatus.class);
        JsonValue st = filters.get("status");
        if (st != null && st.getValueType() != JsonValue.ValueType.NULL) {
            List<String> names = new ArrayList<>();
            if (st instanceof JsonString s) {
                names.add(s.getString());
            } else if (st instanceof JsonArray arr) {
                for (JsonValue v : arr) {
                    if (!(v instanceof JsonString s)) {
                        throw invalid("status must be a list of OPEN, PENDING, CLOSED");
                    }
                    names.add(s.getString());
                }
            } else {
                throw invalid("status must be a list of OPEN, PENDING, CLOSED");
            }
            for (String n : names) {
                statuses.add(parseStatus(n));
            }
        }
        return of(statuses, string(filters, "assigneeId"), string(filters, "createdFrom"), string(filters, "createdTo"),
                string(filters, "q"), zone);
    }

    /**
     * Builds a filter from query parameters (ticket list API) or parsed JSON fields.
     *
     * @throws InvalidInputException ({@code filters.invalid}) on a bad value
     */
    public static TicketFilter of(Set<TicketStatus> statuses, String assigneeId, String createdFrom, String createdTo,
            String q, ZoneId zone) {
        UUID assignee = null;
        if (assigneeId != null && !assigneeId.isBlank()) {
            try {
                assignee = UUID.fromString(assigneeId.trim());
            } catch (IllegalArgumentException e) {
                throw invalid("assigneeId must be a UUID");
            }
        }
        Instant from = bound(createdFrom, zone, false, "createdFrom");
        Instant to = bound(createdTo, zone, true, "createdTo");
        if (from != null && to != null && !from.isBefore(to)) {
            throw invalid("createdFrom must be before createdTo");
        }
        String text = q == null || q.isBlank() ? null : q.strip();
        if (text != null && text.length() > MAX_Q) {
            throw invalid("q must be at most " + MAX_Q + " characters");
        }
        return new TicketFilter(statuses == null ? EnumSet.noneOf(TicketStatus.class) : EnumSet.copyOf(
                statuses.isEmpty() ? EnumSet.noneOf(TicketStatus.class) : statuses), assignee, from, to, text, zone);
    }

    /**
     * Parses a status name.
     *
     * @throws InvalidInputException when not OPEN, PENDING or CLOSED
     */
    public static TicketStatus parseStatus(String name) {
        TicketStatus s = com.teamdesk.tasks.common.ClientValues.enumOf(TicketStatus.class, name);
        if (s == null) {
            throw invalid("status '" + ClientText.echo(name) + "' is not one of OPEN, PENDING, CLOSED");
        }
        return s;
    }

    /**
     * Parses a time zone.
     *
     * @param id IANA id ({@code Asia/Shanghai}) or offset ({@code +08:00}); null or blank = UTC
     * @throws InvalidInputException ({@code filters.invalid}) when unknown
     */
    public static ZoneId zone(String id) {
        if (id == null || id.isBlank()) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(id.trim());
        } catch (DateTimeException e) {
            throw invalid("timeZone '" + ClientText.echo(id) + "' is not a known time zone");
        }
    }

    /** @return the filters as stored in the ledger (normalized JSON; dates as instants), with timeZone */
    public String toJson() {
        JsonObjectBuilder b = Jsons.PROVIDER.createObjectBuilder();
        if (!statuses.isEmpty()) {
            JsonArrayBuilder a = Jsons.PROVIDER.createArrayBuilder();
            statuses.forEach(s -> a.add(s.name()));
            b.add("status", a);
        }
        if (assigneeId != null) {
            b.add("assigneeId", assigneeId.toString());
        }
        if (createdFrom != null) {
            b.add("createdFrom", createdFrom.toString());
        }
        if (createdTo != null) {
            b.add("createdTo", createdTo.toString());
        }
        if (q != null) {
            b.add("q", q);
        }
        b.add("timeZone", timeZone.getId());
        return b.build().toString();
    }

    /**
     * Parses the stored form written by {@link #toJson()}.
     *
     * @throws InvalidInputException when it no longer validates
     */
    public static TicketFilter fromStoredJson(String json) {
        JsonObject o;
        try (var r = Jsons.PROVIDER.createReader(new StringReader(json))) {
            o = r.readObject();
        } catch (RuntimeException e) {
            throw invalid("stored filters are not a JSON object");
        }
        JsonObjectBuilder rest = Jsons.PROVIDER.createObjectBuilder(o);
        rest.remove("timeZone");
        return fromJson(rest.build(), o.containsKey("timeZone") ? o.getString("timeZone", null) : null);
    }

    private static String string(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (v instanceof JsonString s) {
            return s.getString();
        }
        throw invalid(key + " must be a string");
    }

    private static Instant bound(String text, ZoneId zone, boolean upper, String field) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String t = text.trim();
        Instant at;
        try {
            if (t.length() == 10) {
                LocalDate d = LocalDate.parse(t);
                at = (upper ? d.plusDays(1) : d).atStartOfDay(zone).toInstant();
            } else {
                at = OffsetDateTime.parse(t).toInstant();
            }
        } catch (DateTimeException e) {
            try {
                at = Instant.parse(t);
            } catch (DateTimeException e2) {
                throw invalid(field + " must be a date (2026-11-01) or an ISO-8601 date-time with offset");
            }
        }
        if (!inRange(at)) {
            throw invalid(field + " must lie between the years 0001 and 9999");
        }
        return at;
    }

    /**
     * @return true when {@code at} lies in {@code [MIN_INSTANT, MAX_INSTANT]}: the instants this API
     *         lets reach SQL (filters, page cursors), so no client value can overflow PostgreSQL's
     *         timestamp range
     */
    public static boolean inRange(Instant at) {
        return !at.isBefore(MIN_INSTANT) && !at.isAfter(MAX_INSTANT);
    }

    private static InvalidInputException invalid(String detail) {
        return new InvalidInputException("filters.invalid", detail);
    }
}
