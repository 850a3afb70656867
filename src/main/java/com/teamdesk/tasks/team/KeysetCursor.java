package com.teamdesk.tasks.team;

import com.teamdesk.tasks.common.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;

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
