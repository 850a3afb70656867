package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.task.reminder.ReminderTransaction;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.Lease;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import javax.sql.DataSource;

/**
 * The WRONG variant of the reminder transaction, for one test only: its completion runs the same
 * lease-checked UPDATE but returns normally when it matches 0 rows instead of throwing. The test
 * proves that this variant commits the side effects of a lost lease, so the production throw is
 * what protects them (R14). Typed to itself: never injected as a {@link ReminderTransaction}.
 */
@ApplicationScoped
@Typed(ReturningReminderTransaction.class)
public class ReturningReminderTransaction extends ReminderTransaction {

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource ds;

    @Override
    protected void complete(Execution ex, Instant now) {
        Lease lease = ex.lease();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE background_task SET status = 'COMPLETED', progress = 100, execution_id = NULL, updated_at = ?"
                        + " WHERE id = ? AND run = ? AND execution_id = ? AND status = 'RUNNING'")) {
            ps.setObject(1, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
            ps.setObject(2, lease.taskId());
            ps.setInt(3, lease.run());
            ps.setObject(4, lease.executionId());
            ps.executeUpdate(); // Wrong on purpose: a count of 0 is ignored and the transaction commits.
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
