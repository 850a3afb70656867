package com.teamdesk.tasks.task.sweep;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Pause flags of the EJB sweeps, kept in PostgreSQL ({@code timer_pause}) so that a paused sweep is
 * skipped on every instance (operator API, issue 14). Each method is one auto-committed statement; an SQL
 * error throws {@link com.teamdesk.tasks.platform.TableAccessException} naming {@code timer_pause}.
 */
@ApplicationScoped
public class TimerPauses {

    private static final Jdbc.Table PAUSES = Jdbc.Table.of("timer_pause");

    @Inject
    Jdbc jdbc;

    /** Who paused a sweep and when. */
    public record Pause(UUID by, Instant at) {
    }

    /** @return true when the sweep is paused */
    public boolean isPaused(String name) {
        return all().containsKey(name);
    }

    /** @return the paused sweeps by name */
    public Map<String, Pause> all() {
        Map<String, Pause> out = new LinkedHashMap<>();
        for (Map.Entry<String, Pause> e : jdbc.query(PAUSES, "timer pauses", "SELECT name, paused_by, paused_at FROM"
                + " timer_pause", rs -> Map.entry(rs.getString(1), new Pause(Jdbc.uuid(rs, 2), Jdbc.instant(rs, 3))))) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /** @return true when this call paused it; false when it was paused already */
    public boolean pause(String name, UUID by, Instant now) {
        return jdbc.update(PAUSES, "timer pause", "INSERT INTO timer_pause (name, paused_by, paused_at) VALUES (?, ?, ?)"
                + " ON CONFLICT DO NOTHING", name, by, now) == 1;
    }

    /** @return true when this call resumed it; false when it was not paused */
    public boolean resume(String name) {
        return jdbc.update(PAUSES, "timer resume", "DELETE FROM timer_pause WHERE name = ?", name) == 1;
    }
}
