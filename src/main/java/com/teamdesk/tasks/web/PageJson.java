package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Page;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.util.List;
import java.util.function.Function;

/**
 * One page of a list as the API shows it: {@code {"items": [...], "nextCursor": "<opaque>" | null}}.
 *
 * @param <T>        item type
 * @param nextCursor cursor of the next page; null (sent as JSON null) on the last page
 */
@JsonbNillable
@JsonbPropertyOrder({"items", "nextCursor"})
public record PageJson<T>(List<T> items, String nextCursor) {

    /** @return the page with each item mapped to its JSON form */
    public static <S, T> PageJson<T> of(Page<S> page, Function<S, T> map) {
        return new PageJson<>(page.items().stream().map(map).toList(), page.nextCursor());
    }
}
