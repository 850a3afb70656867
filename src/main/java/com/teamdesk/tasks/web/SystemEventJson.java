package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.team.SystemEventRow;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.io.StringReader;
import java.time.Instant;
import java.util.UUID;

/**
 * A system event as the API shows it.
 *
 * @param id      increasing sequence number (a number, not a UUID)
 * @param payload the event's JSON payload as a JSON value (an object)
 */
@JsonbNillable
@JsonbPropertyOrder({"id", "teamId", "kind", "ticketId", "actorId", "taskId", "payload", "createdAt"})
@org.eclipse.microprofile.openapi.annotations.media.Schema(name = "SystemEvent")
public record SystemEventJson(long id, UUID teamId, String kind, UUID ticketId, UUID actorId, UUID taskId,
        JsonValue payload, Instant createdAt) {

    /** @return the JSON form of a row */
    public static SystemEventJson of(SystemEventRow e) {
        JsonValue payload;
        try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(e.payloadJson() == null ? "{}" : e.payloadJson()))) {
            payload = r.readValue();
        }
        return new SystemEventJson(e.id(), e.teamId(), e.kind(), e.ticketId(), e.actorId(), e.taskId(), payload,
                e.createdAt());
    }
}
