package com.teamdesk.tasks.task.spi;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The recurring schedules of a kind (R41), as a kind stops them outside any execution: R24's reminder schedules
 * disabled when their ticket closes. The schedules' room implements it (a CDI bean); the kind names itself and what
 * identifies its schedules.
 */
public interface KindSchedules {

    /**
     * Disables the enabled schedules of {@code kind} in {@code teamId} whose stored parameter {@code param} is
     * {@code value}, each with the reason and a system event {@code schedule.disabled}, in the caller's transaction.
     *
     * @param ticketId the ticket the events are about, or null
     * @param actorId  who caused it (the events' actor)
     * @return the schedules disabled
     */
    List<UUID> disableWhere(TaskKind kind, UUID teamId, String param, String value, String reason, UUID ticketId,
            UUID actorId, Instant now);
}
