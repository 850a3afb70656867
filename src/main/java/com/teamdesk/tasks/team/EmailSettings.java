package com.teamdesk.tasks.team;

import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.transaction.Transactional;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Issue 54 (R60): where a member's notifications go by email — their address and, per task kind, whether they want
 * them by email at all ({@code GET/PUT /api/v1/me/email-settings}). Read and written by the member only; a
 * notification's statement reads them when it writes its outbox row.
 */
@ApplicationScoped
@Transactional
public class EmailSettings {
    /** The fields of a PUT body. */
    public static final Set<String> FIELDS = Set.of("email", "kinds");
    /** Longest address (RFC 5321's path limit). */
    public static final int MAX_EMAIL = 254;
    /** Most kinds a member names. */
    public static final int MAX_KINDS = 64;
    private static final Pattern KIND = Pattern.compile("[A-Z][A-Z0-9_]{0,31}");
    private static final Jdbc.Table PREFERENCE = Jdbc.Table.of("notification_preference");

    @Inject
    Jdbc jdbc;

    /**
     * A member's email settings.
     *
     * @param email their address, or null (no email)
     * @param kinds per task kind, whether its notifications come by email (a kind not named: yes)
     */
    public record View(String email, Map<String, Boolean> kinds) {
    }

    /** @throws NotFoundException ({@code user.not_found}) the token's subject is not a TeamDesk user */
    public View read(UUID callerId) {
        String email = jdbc.queryOne(Tables.APP_USER, "email read", "SELECT coalesce(email, '') FROM app_user WHERE"
                + " id = ?", rs -> rs.getString(1), callerId)
                .orElseThrow(() -> new NotFoundException("user.not_found", "Your account is not known to TeamDesk."));
        Map<String, Boolean> kinds = new TreeMap<>();
        jdbc.query(PREFERENCE, "preference read", "SELECT kind, email FROM notification_preference WHERE user_id = ?",
                rs -> Map.entry(rs.getString(1), rs.getBoolean(2)), callerId).forEach(e -> kinds.put(e.getKey(),
                        e.getValue()));
        return new View(email.isEmpty() ? null : email, kinds);
    }

    /**
     * Replaces the caller's settings: {@code email} (an address, or null/absent for none) and {@code kinds} (an object
     * of kind name to boolean; absent: every kind by email).
     *
     * @throws InvalidInputException ({@code settings.email_invalid}) not one plain ASCII address of at most 254
     *                               characters (no name part, no spaces or control characters);
     *                               ({@code settings.invalid}) {@code kinds} not such an object
     */
    public View replace(UUID callerId, JsonObject body) {
        String email = email(body.get("email"));
        Map<String, Boolean> kinds = kinds(body.get("kinds"));
        read(callerId); // 404 for an unknown caller, before any write
        jdbc.update(Tables.APP_USER, "email write", "UPDATE app_user SET email = ? WHERE id = ?", email, callerId);
        jdbc.update(PREFERENCE, "preference write", "DELETE FROM notification_preference WHERE user_id = ?", callerId);
        kinds.forEach((kind, on) -> jdbc.update(PREFERENCE, "preference write", "INSERT INTO notification_preference"
                + " (user_id, kind, email) VALUES (?, ?, ?)", callerId, kind, on));
        return read(callerId);
    }

    private static String email(JsonValue v) {
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (v.getValueType() != JsonValue.ValueType.STRING) {
            throw badEmail("'email' must be a string or null.");
        }
        String e = ((jakarta.json.JsonString) v).getString();
        if (e.isEmpty() || e.length() > MAX_EMAIL || !e.chars().allMatch(c -> c > 32 && c < 127)) {
            throw badEmail("'email' must be 1-" + MAX_EMAIL + " printable ASCII characters without spaces.");
        }
        try {
            InternetAddress a = new InternetAddress(e, true);
            a.validate();
            if (!e.equals(a.getAddress()) || a.getPersonal() != null || e.indexOf('@') <= 0) {
                throw new AddressException("not a plain address");
            }
        } catch (AddressException x) {
            throw badEmail("'" + ClientText.echo(e) + "' is not one plain address (like ada@example.com).");
        }
        return e;
    }

    private static Map<String, Boolean> kinds(JsonValue v) {
        Map<String, Boolean> out = new TreeMap<>();
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return out;
        }
        if (v.getValueType() != JsonValue.ValueType.OBJECT || v.asJsonObject().size() > MAX_KINDS) {
            throw new InvalidInputException("settings.invalid", "'kinds' must be an object of at most " + MAX_KINDS
                    + " kinds, each true or false.");
        }
        v.asJsonObject().forEach((k, b) -> {
            if (!KIND.matcher(k).matches() || (b.getValueType() != JsonValue.ValueType.TRUE
                    && b.getValueType() != JsonValue.ValueType.FALSE)) {
                throw new InvalidInputException("settings.invalid", "'kinds' names a task kind (e.g. REMINDER) with"
                        + " true or false; '" + ClientText.echo(k) + "' is not that.");
            }
            out.put(k, b.getValueType() == JsonValue.ValueType.TRUE);
        });
        return out;
    }

    private static InvalidInputException badEmail(String detail) {
        return new InvalidInputException("settings.email_invalid", detail);
    }
}
