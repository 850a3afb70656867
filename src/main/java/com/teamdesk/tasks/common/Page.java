package com.teamdesk.tasks.common;

import java.util.List;

/**
 * One page of a keyset-paginated list: the items and an opaque cursor for the next page,
 * {@code null} on the last page.
 *
 * @param <T> item type
 */
public record Page<T>(List<T> items, String nextCursor) {
    /** Default page size when the client gives none. */
    public static final int DEFAULT_LIMIT = 50;
    /** Largest page size a client may ask for. */
    public static final int MAX_LIMIT = 500;

    /**
     * Validates a client's {@code limit}.
     *
     * @param limit requested size or {@code null}
     * @return the default (50) when null, else the value
     * @throws InvalidInputException when outside 1..500
     */
    public static int limit(Integer limit) {
        if (limit == null) {
            return DEFAULT_LIMIT;
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new InvalidInputException("page.limit", "limit must be between 1 and " + MAX_LIMIT);
        }
        return limit;
    }
}
