package com.teamdesk.tasks.platform;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * Column readers that use the JDBC getters Payara's pooled result-set wrapper forwards directly.
 * Its {@code getObject(int, Class)} goes through reflection ({@code Class.getDeclaredMethod}) on
 * every call, which was the top CPU frame of a 50 000-row export (bench/notes/P3.md).
 */
public final class Jdbc {
    private Jdbc() {
    }

    /** @return a {@code uuid} column (pgjdbc answers {@link UUID}), or null */
    public static UUID uuid(ResultSet rs, int column) throws SQLException {
        return (UUID) rs.getObject(column);
    }

    /** @return a {@code timestamptz} column as an instant, or null */
    public static Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    /** @return a {@code timestamptz} column at UTC, or null */
    public static OffsetDateTime offsetDateTime(ResultSet rs, int column) throws SQLException {
        Instant i = instant(rs, column);
        return i == null ? null : i.atOffset(ZoneOffset.UTC);
    }
}
