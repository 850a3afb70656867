package com.teamdesk.tasks.task.spi;

import com.teamdesk.tasks.common.AppException;

/**
 * Issue 52: the refusal of one request among several checked together ({@link TaskKindHandler#acceptAll}): which
 * one (its index in the list the kind was given) and the kind's own refusal of it.
 */
public final class RefusedAt extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int index;
    private final transient AppException reason;

    /**
     * @param index  the refused request's index in the list given to {@code acceptAll}
     * @param reason the kind's refusal, as {@link TaskKindHandler#accept} would throw it
     */
    public RefusedAt(int index, AppException reason) {
        super(reason.getMessage(), reason);
        this.index = index;
        this.reason = reason;
    }

    /** @return the refused request's index in the list given to {@code acceptAll} */
    public int index() {
        return index;
    }

    /** @return the kind's refusal */
    public AppException reason() {
        return reason;
    }
}
