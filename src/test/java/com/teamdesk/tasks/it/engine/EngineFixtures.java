package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.queue.Job;
import com.teamdesk.tasks.task.engine.TaskWorker;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * In-server data and execution helpers for engine tests: every test makes its own team (random
 * ids, so tests never depend on each other or on the demo seed), and runs executions of the
 * production processor on the production worker threads.
 */
@ApplicationScoped
public class EngineFixtures {

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    @Inject
    TaskWorker taskWorker;

    /** A fresh team: owner, two staff, a customer and an outsider (member of another team). */
    public record TestTeam(UUID id, UUID owner, UUID staff, UUID staff2, UUID customer, UUID outsider) {
    }

    /** Creates a team with its members. */
    public TestTeam newTeam() {
        UUID team = UUID.randomUUID();
        UUID other = UUID.randomUUID();
        TestTeam t = new TestTeam(team, UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(),
                UUID.randomUUID());
        String tag = team.toString().substring(0, 8);
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, ?)", team, "t-" + tag, "Team " + tag);
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, ?)", other, "o-" + tag, "Other " + tag);
        user(t.owner(), "owner-" + tag);
        user(t.staff(), "staff-" + tag);
        user(t.staff2(), "staff2-" + tag);
        user(t.customer(), "customer-" + tag);
        user(t.outsider(), "outsider-" + tag);
        member(team, t.owner(), "OWNER");
        member(team, t.staff(), "STAFF");
        member(team, t.staff2(), "STAFF");
        member(team, t.customer(), "CUSTOMER");
        member(other, t.outsider(), "OWNER");
        return t;
    }

    /** Creates {@code n} OPEN tickets titled {@code "<prefix> <i>"}, assigned to staff, requested by the customer. */
    public List<UUID> tickets(TestTeam t, int n, String prefix) {
        List<UUID> ids = new ArrayList<>();
        OffsetDateTime base = OffsetDateTime.now(ZoneOffset.UTC).minusDays(1);
        for (int i = 0; i < n; i++) {
            UUID id = UUID.randomUUID();
            exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                    + " updated_at, version) VALUES (?, ?, ?, ?, 'OPEN', 'NORMAL', ?, ?, ?, ?, 1)", id, t.id(),
                    prefix + " " + i, "body " + i, t.staff(), t.customer(), base.plusSeconds(i), base.plusSeconds(i));
            ids.add(id);
        }
        return ids;
    }

    /** Changes a member's role (promotion/demotion takes effect at once). */
    public void setRole(UUID team, UUID user, String role) {
        exec("UPDATE membership SET role = ? WHERE team_id = ? AND user_id = ?", role, team, user);
    }

    /** Moves a task's {@code updatedAt} into the past, to compress the 2-minute stall clock (R19). */
    public void age(UUID taskId, Duration by) {
        exec("UPDATE background_task SET updated_at = updated_at - make_interval(secs => ?) WHERE id = ?",
                (double) by.toSeconds(), taskId);
    }

    /** Runs one statement; returns its update count. */
    public int exec(String sql, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** @return the single long a query returns (e.g. a count) */
    public long count(String sql, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** @return the first column of the first row of {@code sql} (null when it returns no row) */
    public Object value(String sql, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getObject(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** @return every row of {@code sql}, each as its columns' values */
    public java.util.List<Object[]> rows(String sql, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                java.util.List<Object[]> out = new java.util.ArrayList<>();
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Object[] row = new Object[n];
                    for (int k = 0; k < n; k++) {
                        row[k] = rs.getObject(k + 1);
                    }
                    out.add(row);
                }
                return out;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** @return notifications written for a task (R14: one per recipient) */
    public long notifications(UUID taskId) {
        return count("SELECT count(*) FROM notification WHERE task_id = ?", taskId);
    }

    /** @return system events written for a task */
    public long events(UUID taskId) {
        return count("SELECT count(*) FROM system_event WHERE task_id = ?", taskId);
    }

    /**
     * R14's single result of a TEAM_STAFF reminder of a {@link #newTeam()} team about a fresh ticket:
     * 3 notifications (owner and two staff), 1 event, ticket version 1 → 2, the row COMPLETED, progress
     * 100, no lease, {@code attempts} as given.
     */
    public void assertSingleReminderResult(BackgroundTask row, UUID ticketId, int attempts) {
        assertEquals(3, notifications(row.id()), "one notification per staff recipient");
        assertEquals(1, events(row.id()), "one system event");
        assertEquals(2, ticketVersion(ticketId), "version +1");
        assertEquals(TaskStatus.COMPLETED, row.status());
        assertEquals(100, row.progress());
        assertNull(row.executionId());
        assertEquals(attempts, row.attempts());
    }

    /** @return a ticket's version */
    public int ticketVersion(UUID ticketId) {
        return (int) count("SELECT version FROM ticket WHERE id = ?", ticketId);
    }

    /**
     * Starts {@code body} on one of the deployed {@code TaskWorker}'s own threads, where production
     * executions run (issue 10: the thread's context decides whether JTA transactions enlist).
     */
    public <T> Future<T> start(Callable<T> body) {
        return taskWorker.submit(body);
    }

    /** A job for run {@code run} of {@code taskId} at the given attempt (attemptsMade 0-based). */
    public static RecordingJob job(UUID taskId, int run, int attemptsMade) {
        return new RecordingJob(TaskJobId.of(taskId, run), attemptsMade);
    }

    /** Type witness so that tests can pass a {@link RecordingJob} where a queue {@link Job} is expected. */
    public static Job asJob(RecordingJob j) {
        return j;
    }

    private void user(UUID id, String name) {
        exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, ?)", id, name, name);
    }

    private void member(UUID team, UUID user, String role) {
        exec("INSERT INTO membership (team_id, user_id, role) VALUES (?, ?, ?)", team, user, role);
    }
}
