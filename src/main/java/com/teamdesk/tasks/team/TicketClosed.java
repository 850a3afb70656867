package com.teamdesk.tasks.team;

import java.time.Instant;
import java.util.UUID;

/**
 * CDI event fired synchronously by {@link TicketService#patch} when a ticket becomes CLOSED, inside
 * the PATCH's transaction and under the team lock, so that observers' writes commit or roll back
 * with the status change (R24: its waiting reminders are cancelled).
 *
 * @param actorId who closed it
 * @param at      the change's time (application clock)
 */
public record TicketClosed(UUID teamId, UUID ticketId, UUID actorId, Instant at) {
}
