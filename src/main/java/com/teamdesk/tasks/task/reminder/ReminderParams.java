package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.InvalidInputException;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.UUID;

/**
 * A reminder's validated parameters ({@link ReminderHandler}), stored as the task's {@code params}
 * (column {@code filters}).
 *
 * @param ticketId   the ticket reminded about
 * @param message    text sent to the recipients, 1-1000 characters
 * @param recipients who is notified
 */
public record ReminderParams(UUID ticketId, String message, Recipients recipients) {
    /** Longest accepted message. */
    public static final int MAX_MESSAGE = 1000;

    /** Who a reminder notifies. */
    public enum Recipients {
        /** The ticket's assignee. */
        ASSIGNEE,
        /** Every STAFF and OWNER member of the team. */
        TEAM_STAFF
    }

    /**
     * Validates API input.
     *
     * @param recipients "ASSIGNEE" (default when null) or "TEAM_STAFF"
     * @throws InvalidInputException ({@code reminder.invalid}) naming the bad field
     */
    public static ReminderParams validate(String ticketId, String message, String recipients) {
        UUID id;
        try {
            id = UUID.fromString(ticketId == null ? "" : ticketId.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException("reminder.invalid", "ticketId must be a UUID.");
        }
        String text = message == null ? "" : message.strip();
        if (text.isEmpty() || text.length() > MAX_MESSAGE) {
            throw new InvalidInputException("reminder.invalid", "message must be 1 to " + MAX_MESSAGE + " characters.");
        }
        Recipients r = recipients == null || recipients.isBlank() ? Recipients.ASSIGNEE
                : com.teamdesk.tasks.common.ClientValues.enumOf(Recipients.class, recipients);
        if (r == null) {
            throw new InvalidInputException("reminder.invalid", "recipients must be ASSIGNEE or TEAM_STAFF.");
        }
        return new ReminderParams(id, text, r);
    }

    /** @return the stored JSON form */
    public String toJson() {
        return Jsons.PROVIDER.createObjectBuilder().add("ticketId", ticketId.toString()).add("message", message)
                .add("recipients", recipients.name()).build().toString();
    }

    /**
     * Parses the stored JSON form.
     *
     * @throws InvalidInputException when it no longer validates
     */
    public static ReminderParams fromJson(String json) {
        try (var r = Jsons.PROVIDER.createReader(new StringReader(json))) {
            JsonObject o = r.readObject();
            return validate(o.getString("ticketId", null), o.getString("message", null), o.getString("recipients", null));
        } catch (RuntimeException e) {
            if (e instanceof InvalidInputException iie) {
                throw iie;
            }
            throw new InvalidInputException("reminder.invalid", "stored reminder is not valid JSON");
        }
    }
}
