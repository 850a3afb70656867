package com.teamdesk.tasks.task.idempotency;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.UnprocessableException;
import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R25: the {@code Idempotency-Key} store on PostgreSQL. The primary key {@code (caller_id, idem_key)}
 * is the enforcement: {@link #record} inserts the key in the caller's transaction, the same one that
 * inserts the task (or retries or cancels it), so two requests with one key can never both act. A
 * request racing one still in flight waits for it at most {@code teamdesk.idempotency.wait-ms}
 * (PostgreSQL {@code lock_timeout}), then answers 409 {@code idempotency.in_progress}. Keys live
 * 24 h ({@code teamdesk.idempotency.ttl-s}); an expired key is reused in place and {@link #purgeExpired}
 * deletes them in batches (timer). SQL errors throw {@link com.teamdesk.tasks.platform.TableAccessException}
 * naming {@code idempotency_key}.
 */
@ApplicationScoped
public class IdempotencyKeys {

    /** A stored answer: the task it named and the HTTP status it had. */
    public record Stored(UUID taskId, int status) {
    }

    private static final Jdbc.Table KEYS = Jdbc.Table.of("idempotency_key");

    @Inject
    Jdbc jdbc;

    @Inject
    @ConfigProperty(name = "teamdesk.idempotency.ttl-s", defaultValue = "86400")
    long ttlS;

    @Inject
    @ConfigProperty(name = "teamdesk.idempotency.wait-ms", defaultValue = "2000")
    long waitMs;

    /**
     * The committed, unexpired answer to this caller's key, checked against the request.
     *
     * @return the stored answer, or empty when the key is unused (or expired)
     * @throws UnprocessableException ({@code idempotency.key_reused}) the key was used for another request
     */
    public Optional<Stored> find(IdempotentRequest req, Instant now) {
        return jdbc.queryOne(KEYS, "idempotency key read", "SELECT fingerprint, task_id, response_status FROM"
                + " idempotency_key WHERE caller_id = ? AND idem_key = ? AND expires_at > ?", rs -> {
                    if (!rs.getString(1).equals(req.fingerprint())) {
                        throw keyReused();
                    }
                    return new Stored(Jdbc.uuid(rs, 2), rs.getInt(3));
                }, req.callerId(), req.key(), now);
    }

    /**
     * Records the answer under the key, in the caller's transaction (which must also do the work).
     * An expired row of the same key is replaced.
     *
     * @return empty when recorded (the caller goes on and does the work); the earlier answer when
     *         the key was committed meanwhile by an identical request (the caller does nothing)
     * @throws UnprocessableException ({@code idempotency.key_reused}) committed meanwhile by another request
     * @throws ConflictException      ({@code idempotency.in_progress}) an identical request holding
     *                                the key is still in flight after the wait
     */
    @Transactional(TxType.MANDATORY)
    public Optional<Stored> record(IdempotentRequest req, UUID taskId, int status, Instant now) {
        // One session for the three statements: the lock_timeout is set, used and reset on it.
        int n = jdbc.withConnection(KEYS, "idempotency key insert", c -> {
            Jdbc.update(c, "SELECT set_config('lock_timeout', ?, true)", Math.max(1, waitMs) + "ms");
            int inserted;
            try {
                inserted = Jdbc.update(c, "INSERT INTO idempotency_key (caller_id, idem_key, fingerprint,"
                        + " response_status, task_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                        + " ON CONFLICT (caller_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,"
                        + " response_status = EXCLUDED.response_status, task_id = EXCLUDED.task_id,"
                        + " created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at"
                        + " WHERE idempotency_key.expires_at <= EXCLUDED.created_at", req.callerId(), req.key(),
                        req.fingerprint(), status, taskId, now, now.plus(Duration.ofSeconds(ttlS)));
            } catch (SQLException e) {
                if ("55P03".equals(e.getSQLState())) {
                    throw new ConflictException("idempotency.in_progress",
                            "A request with this Idempotency-Key is still being processed; try again later.");
                }
                throw e;
            }
            Jdbc.update(c, "SELECT set_config('lock_timeout', '0', true)");
            return inserted;
        });
        if (n == 1) {
            return Optional.empty();
        }
        return Optional.of(find(req, now).orElseThrow(
                () -> new IllegalStateException("idempotency key " + req.key() + " conflicted but is not readable")));
    }

    /** Deletes up to {@code limit} keys expired at {@code now}; rows another sweep holds are skipped. */
    @Transactional(TxType.MANDATORY)
    public int purgeExpired(Instant now, int limit) {
        return jdbc.update(KEYS, "idempotency key purge", "DELETE FROM idempotency_key WHERE (caller_id, idem_key) IN"
                + " (SELECT caller_id, idem_key FROM idempotency_key WHERE expires_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)",
                now, limit);
    }

    /** @return the problem of a key used for a different request */
    static UnprocessableException keyReused() {
        return new UnprocessableException("idempotency.key_reused",
                "This Idempotency-Key was already used for a different request.");
    }
}
