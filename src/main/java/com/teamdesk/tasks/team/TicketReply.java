package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import java.time.Instant;
import java.util.UUID;

/**
 * A reply on a ticket (issue 53, R57): the smallest reply model a help desk needs.
 *
 * @param fromStaff true when its author was staff or an owner of the team when writing it
 */
public record TicketReply(UUID id, UUID ticketId, UUID authorId, boolean fromStaff, String body, Instant createdAt) {
    static final Jdbc.Row<TicketReply> ROW = rs -> new TicketReply(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2), Jdbc.uuid(rs, 3),
            rs.getBoolean(4), rs.getString(5), Jdbc.instant(rs, 6));
}
