package com.teamdesk.tasks.task.admin;

import com.teamdesk.tasks.task.admin.AdminViews.AdminExecution;
import com.teamdesk.tasks.task.admin.AdminViews.OutcomeCount;
import com.teamdesk.tasks.task.admin.JdbcTaskAdmin.ExecutionFilter;
import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.testing.MigrationSchema;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Migration V16 (issue 32, R43/R44): the end of an execution writes no indexed column of the history, so it can
 * be a heap-only update; the incident view (STALLED, TAKEN_OVER) moves to a side table the trigger appends to in
 * the end's own statement, and the incidents recorded before the upgrade are in it.
 */
class ExecutionEndMigrationTest {

    private final MigrationSchema migration = new MigrationSchema("exec_end_migration");
    private final String schema = migration.name();

    @AfterEach
    void dropTheSchema() throws Exception {
        migration.close();
    }

    @Test
    void endsWriteNoIndexedColumnAndIncidentsKeepTheirView() throws Exception {
        PGSimpleDataSource db = migration.migrate("15");

        UUID team = UUID.randomUUID();
        UUID owner = UUID.randomUUID();
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, 'Migration')", team, "migration-" + team);
        exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, 'Owner')", owner, "owner-" + owner);
        UUID before = task(team, owner);
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        claim(before, a, 1);
        claim(before, b, 2); // V13's trigger: A TAKEN_OVER by B, before V16 existed

        migration.migrate(null);

        assertEquals(List.of(a.toString()), strings("SELECT execution_id::text FROM task_execution_incident"),
                "the incident recorded before the upgrade is in the side table");
        UUID after = task(team, owner);
        UUID c = UUID.randomUUID();
        UUID d = UUID.randomUUID();
        claim(after, c, 1);
        claim(after, d, 2); // C TAKEN_OVER by D: appended in the takeover's statement
        exec("UPDATE background_task SET status = 'COMPLETED', execution_id = NULL, progress = 100,"
                + " updated_at = now() WHERE id = ?", after);
        exec("UPDATE background_task SET status = 'COMPLETED', execution_id = NULL, progress = 100,"
                + " updated_at = now() WHERE id = ?", before);
        assertEquals(2, strings("SELECT execution_id::text FROM task_execution_incident").size(),
                "completions are no incidents");

        JdbcTaskAdmin admin = new JdbcTaskAdmin();
        admin.jdbc = new com.teamdesk.tasks.platform.Jdbc(db);
        ExecutionFilter incidents = new ExecutionFilter(Set.of(ExecutionOutcome.TAKEN_OVER, ExecutionOutcome.STALLED),
                false, null, team, null, Instant.now().minusSeconds(3600), null);
        List<AdminExecution> first = admin.executions(incidents, null, null, 1);
        assertEquals(c, first.get(0).executionId(), "newest claim first");
        assertEquals(d, first.get(0).takenOverBy());
        List<AdminExecution> next = admin.executions(incidents, first.get(0).claimedAt(), c, 2);
        assertEquals(List.of(a), next.stream().map(AdminExecution::executionId).toList(), "keyset on the side table");
        assertEquals(List.of(new OutcomeCount("TAKEN_OVER", 2, 1)), admin.executionCounts(incidents));
        ExecutionFilter completed = new ExecutionFilter(Set.of(ExecutionOutcome.COMPLETED, ExecutionOutcome.TAKEN_OVER),
                false, null, team, null, null, null);
        assertEquals(4, admin.executions(completed, null, null, 10).size(), "other filters read the whole history");

        // HOT: no index of task_execution names (in its key, expressions or predicate) a column the end writes
        List<String> indexed = strings("SELECT DISTINCT a.attname FROM pg_index i"
                + " JOIN pg_attribute a ON a.attrelid = i.indrelid"
                + " AND (a.attnum = ANY (i.indkey) OR pg_get_expr(i.indpred, i.indrelid) ~ ('\\m' || a.attname || '\\M')"
                + "      OR pg_get_expr(i.indexprs, i.indrelid) ~ ('\\m' || a.attname || '\\M'))"
                + " WHERE i.indrelid = '" + schema + ".task_execution'::regclass AND a.attnum > 0");
        for (String written : List.of("ended_at", "outcome", "cause", "progress", "taken_over_by")) {
            assertTrue(!indexed.contains(written), written + " is indexed: " + indexed);
        }
        assertEquals(List.of("fillfactor=50"), strings("SELECT unnest(reloptions) FROM pg_class WHERE oid = '"
                + schema + ".task_execution'::regclass"));
    }

    private UUID task(UUID team, UUID owner) throws Exception {
        UUID id = UUID.randomUUID();
        OffsetDateTime now = OffsetDateTime.now();
        exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, status, run_at, created_at, updated_at)"
                + " VALUES (?, 'EXPORT', ?, ?, 'SELF', 'WAITING', ?, ?, ?)", id, team, owner, now, now, now);
        return id;
    }

    /** A claim (NULL -> id) or a takeover (id -> id) as the ledger writes it; timestamps strictly increase. */
    private void claim(UUID task, UUID execution, int attempt) throws Exception {
        exec("UPDATE background_task SET status = 'RUNNING', execution_id = ?, attempts = ?, claimed_by = 'w',"
                + " updated_at = clock_timestamp() WHERE id = ?", execution, attempt, task);
    }

    private void exec(String sql, Object... args) throws Exception {
        migration.exec(sql, args);
    }

    private List<String> strings(String sql) throws Exception {
        return migration.strings(sql);
    }
}
