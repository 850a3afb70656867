package com.teamdesk.tasks.common;

/**
 * A client error about one item of a request that carries many (a batch's children, issue 52): the item's own
 * error, its status and code kept, its detail prefixed with which item it is, e.g. {@code items[3] (REMINDER): …}.
 */
public class RefusedItem extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param which the item, e.g. {@code items[3] (REMINDER)}
     * @param why   the item's own error
     */
    public RefusedItem(String which, AppException why) {
        super(why.status(), why.title(), why.code(), which + ": " + why.detail());
    }
}
