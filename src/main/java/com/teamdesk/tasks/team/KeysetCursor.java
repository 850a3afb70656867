package com.teamdesk.tasks.team;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.Page;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * The opaque {@code cursor} of a keyset-paginated list ordered by {@code (createdAt, id)}: the
 * position of the last row of the previous page, base64url-encoded. Clients treat it as opaque.
 *
 * @param createdAt createdAt of the last row already returned
 * @param id        id of that row (tie-breaker)
 */
public record KeysetCursor(Instant createdAt, UUID id) {

    /** @return the cursor text for a page that ended with this position */
    public String encode() {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((createdAt + "|" + id).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Ends a newest-first keyset query: {@code AND (created_at, id) < (?, ?)} when there is a position,
     * then {@code ORDER BY created_at DESC, id DESC LIMIT ?}, adding the bind values in that order.
     *
     * @param sql            the query so far (a WHERE clause already begun)
     * @param args           its bind values so far
     * @param afterCreatedAt createdAt of the last row already returned, or null for the first page
     * @param afterId        id of that row (ignored for the first page)
     * @param limit          rows to read (usually the page size + 1, see {@link #page})
     */
    public static void appendNewestFirst(StringBuilder sql, List<Object> args, Instant afterCreatedAt, UUID afterId,
            int limit) {
        if (afterCreatedAt != null) {
            sql.append(" AND (created_at, id) < (?, ?)");
            args.add(afterCreatedAt);
            args.add(afterId);
        }
        sql.append(" ORDER BY created_at DESC, id DESC LIMIT ?");
        args.add(limit);
    }

    /**
     * Makes the page of a keyset list read with one row more than the page holds (limit + 1): the
     * first {@code limit} rows, and the cursor after the last of them when the extra row exists.
     *
     * @param rows      up to {@code limit + 1} rows in (createdAt, id) descending order
     * @param limit     the page size (1-500)
     * @param createdAt a row's createdAt
     * @param id        a row's id
     */
    public static <T> Page<T> page(List<T> rows, int limit, Function<T, Instant> createdAt, Function<T, UUID> id) {
        if (rows.size() <= limit) {
            return new Page<>(rows, null);
        }
        T last = rows.get(limit - 1);
        return new Page<>(List.copyOf(rows.subList(0, limit)), new KeysetCursor(createdAt.apply(last), id.apply(last)).encode());
    }

    /**
     * Parses a client's cursor.
     *
     * @param text cursor from a previous page, or null/blank for the first page
     * @return the position, or null for the first page
     * @throws InvalidInputException ({@code page.cursor}) when it is not a cursor this API issued, or
     *                               names an instant outside {@link TicketFilter#inRange}
     */
    public static KeysetCursor decode(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            String[] parts = new String(Base64.getUrlDecoder().decode(text.trim()), StandardCharsets.UTF_8).split("\\|");
            if (parts.length != 2) {
                throw new IllegalArgumentException("two parts expected");
            }
            Instant at = Instant.parse(parts[0]);
            if (!TicketFilter.inRange(at)) {
                throw new IllegalArgumentException("instant out of range");
            }
            return new KeysetCursor(at, UUID.fromString(parts[1]));
        } catch (RuntimeException e) {
            throw new InvalidInputException("page.cursor", "The cursor is not valid.");
        }
    }
}
