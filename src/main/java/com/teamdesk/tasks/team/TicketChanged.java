package com.teamdesk.tasks.team;

import java.time.Instant;
import java.util.UUID;

/**
 * CDI event fired synchronously by {@link TicketService} inside the transaction of a ticket change that moves its
 * promises (issue 53, R57): its creation, a status or priority change, a reply by staff. Observers' writes (the SLA
 * clocks) commit or roll back with the change.
 *
 * @param status        the ticket's status after the change
 * @param before        its status before the change (equal to {@code status} when the status did not move)
 * @param priority      its priority after the change
 * @param created       the ticket was created by this change
 * @param priorityMoved its priority changed
 * @param staffReplied  staff (or an owner) replied
 * @param at            the change's time (the application clock: the database's, R37)
 */
public record TicketChanged(UUID teamId, UUID ticketId, TicketStatus status, TicketStatus before, Priority priority,
        boolean created, boolean priorityMoved, boolean staffReplied, Instant at) {

    /** @return true when the status moved */
    public boolean statusMoved() {
        return status != before;
    }
}
