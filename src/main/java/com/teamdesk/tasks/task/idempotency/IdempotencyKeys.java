package com.teamdesk.tasks.task.idempotency;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.UnprocessableException;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.task.ledger.LedgerException;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R25: the {@code Idempotency-Key} store on PostgreSQL. The primary key {@code (caller_id, idem_key)}
 * is the enforcement: {@link #record} inserts the key in the caller's transaction, the same one that
 * inserts the task (or retries or cancels it), so two requests with one key can never both act. A
 * request racing one still in flight waits for it at most {@code teamdesk.idempotency.wait-ms}
 * (PostgreSQL {@code lock_timeout}), then answers 409 {@code idempotency.in_progress}. Keys live
 * 24 h ({@code teamdesk.idempotency.ttl-s}); an expired key is reused in place and {@link #purgeExpired}
 * deletes them in batches (timer).
 */
@ApplicationScoped
public class IdempotencyKeys {

    /** A stored answer: the task it named and the HTTP status it had. */
    public record Stored(UUID taskId, int status) {
    }

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

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
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT fingerprint, task_id, response_status FROM idempotency_key WHERE caller_id = ? AND idem_key = ?"
                        + " AND expires_at > ?")) {
            ps.setObject(1, req.callerId());
            ps.setString(2, req.key());
            ps.setObject(3, at(now));
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                if (!rs.getString(1).equals(req.fingerprint())) {
                    throw keyReused();
                }
                return Optional.of(new Stored(Jdbc.uuid(rs, 2), rs.getInt(3)));
            }
        } catch (SQLException e) {
            throw new LedgerException("idempotency key read", e);
        }
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
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
                ps.setString(1, Math.max(1, waitMs) + "ms");
                ps.executeQuery().close();
            }
            int n;
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO idempotency_key (caller_id, idem_key, fingerprint,"
                    + " response_status, task_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                    + " ON CONFLICT (caller_id, idem_key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,"
                    + " response_status = EXCLUDED.response_status, task_id = EXCLUDED.task_id,"
                    + " created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at"
                    + " WHERE idempotency_key.expires_at <= EXCLUDED.created_at")) {
                ps.setObject(1, req.callerId());
                ps.setString(2, req.key());
                ps.setString(3, req.fingerprint());
                ps.setInt(4, status);
                ps.setObject(5, taskId);
                ps.setObject(6, at(now));
                ps.setObject(7, at(now.plus(Duration.ofSeconds(ttlS))));
                n = ps.executeUpdate();
            } catch (SQLException e) {
                if ("55P03".equals(e.getSQLState())) {
                    throw new ConflictException("idempotency.in_progress",
                            "A request with this Idempotency-Key is still being processed; try again later.");
                }
                throw e;
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT set_config('lock_timeout', '0', true)")) {
                ps.executeQuery().close();
            }
            if (n == 1) {
                return Optional.empty();
            }
            return Optional.of(find(req, now).orElseThrow(
                    () -> new IllegalStateException("idempotency key " + req.key() + " conflicted but is not readable")));
        } catch (SQLException e) {
            throw new LedgerException("idempotency key insert", e);
        }
    }

    /** Deletes up to {@code limit} keys expired at {@code now}; rows another sweep holds are skipped. */
    @Transactional(TxType.MANDATORY)
    public int purgeExpired(Instant now, int limit) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "DELETE FROM idempotency_key WHERE (caller_id, idem_key) IN (SELECT caller_id, idem_key FROM"
                        + " idempotency_key WHERE expires_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)")) {
            ps.setObject(1, at(now));
            ps.setInt(2, limit);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new LedgerException("idempotency key purge", e);
        }
    }

    /** @return the problem of a key used for a different request */
    static UnprocessableException keyReused() {
        return new UnprocessableException("idempotency.key_reused",
                "This Idempotency-Key was already used for a different request.");
    }

    private static OffsetDateTime at(Instant i) {
        return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
    }
}
