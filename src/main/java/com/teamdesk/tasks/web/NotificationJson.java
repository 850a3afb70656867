package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.NotificationRow;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A notification as the API shows it to its recipient.
 *
 * @param taskId   the task that sent it, or null
 * @param ticketId the ticket it is about, or null
 * @param readAt   null while unread
 * @param deliveries where it went besides the console (R60): its email, when the outbox has it
 */
@JsonbNillable
@JsonbPropertyOrder({"id", "teamId", "taskId", "ticketId", "message", "createdAt", "readAt", "deliveries"})
@org.eclipse.microprofile.openapi.annotations.media.Schema(name = "Notification")
public record NotificationJson(UUID id, UUID teamId, UUID taskId, UUID ticketId, String message, Instant createdAt,
        Instant readAt, List<DeliveryJson> deliveries) {

    /**
     * One delivery of a notification (issue 54, R60).
     *
     * @param channel   EMAIL
     * @param state     PENDING, SENT, FAILED, NO_ADDRESS (the member gave no address), OPTED_OUT (they turned this
     *                  kind's email off) or DISCARDED
     * @param attempts  sends tried
     * @param lastError why the last send did not succeed, or null
     * @param sentAt    when the mail server took it, or null
     */
    @JsonbNillable
    @JsonbPropertyOrder({"channel", "state", "attempts", "lastError", "sentAt"})
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "NotificationDelivery")
    public record DeliveryJson(
            @org.eclipse.microprofile.openapi.annotations.media.Schema(enumeration = {"EMAIL"}) String channel,
            @org.eclipse.microprofile.openapi.annotations.media.Schema(enumeration = {"PENDING", "SENT", "FAILED",
                    "NO_ADDRESS", "OPTED_OUT", "DISCARDED"}) String state,
            int attempts, String lastError, Instant sentAt) {
    }

    /** @return the JSON form of a row */
    public static NotificationJson of(NotificationRow n) {
        NotificationRow.Delivery e = n.email();
        return new NotificationJson(n.id(), n.teamId(), n.taskId(), n.ticketId(), n.message(), n.createdAt(), n.readAt(),
                e == null ? List.of() : List.of(new DeliveryJson(e.channel(), e.state(), e.attempts(), e.lastError(),
                        e.sentAt())));
    }
}
