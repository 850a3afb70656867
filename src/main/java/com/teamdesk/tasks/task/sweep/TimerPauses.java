package com.teamdesk.tasks.task.sweep;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.task.ledger.LedgerException;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Pause flags of the EJB sweeps, kept in PostgreSQL ({@code timer_pause}) so that a paused sweep is
 * skipped on every instance (operator API, issue 14). Each method is one auto-committed statement.
 */
@ApplicationScoped
public class TimerPauses {

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    /** Who paused a sweep and when. */
    public record Pause(UUID by, Instant at) {
    }

    /** @return true when the sweep is paused */
    public boolean isPaused(String name) {
        return all().containsKey(name);
    }

    /** @return the paused sweeps by name */
    public Map<String, Pause> all() {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT name, paused_by, paused_at FROM timer_pause");
                ResultSet rs = ps.executeQuery()) {
            Map<String, Pause> out = new LinkedHashMap<>();
            while (rs.next()) {
                out.put(rs.getString(1), new Pause(rs.getObject(2, UUID.class),
                        rs.getObject(3, OffsetDateTime.class).toInstant()));
            }
            return out;
        } catch (SQLException e) {
            throw new LedgerException("timer pauses", e);
        }
    }

    /** @return true when this call paused it; false when it was paused already */
    public boolean pause(String name, UUID by, Instant now) {
        return update("INSERT INTO timer_pause (name, paused_by, paused_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                name, by, OffsetDateTime.ofInstant(now, ZoneOffset.UTC)) == 1;
    }

    /** @return true when this call resumed it; false when it was not paused */
    public boolean resume(String name) {
        return update("DELETE FROM timer_pause WHERE name = ?", name) == 1;
    }

    private int update(String sql, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Jdbc.bind(ps, 1, args);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new LedgerException("timer pause", e);
        }
    }
}
