package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.export.ExportResultStore;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.testing.MigrationSchema;
import java.io.ByteArrayOutputStream;
import java.security.MessageDigest;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Migration V6 (issue 16): a CSV stored in {@code result_csv} before the upgrade becomes chunks of
 * 4 MiB and downloads exactly as before, with the size and SHA-256 the row showed; the old column is gone.
 */
class ResultChunksMigrationTest {

    private final MigrationSchema migration = new MigrationSchema("chunks_migration");
    private final String schema = migration.name();

    @AfterEach
    void dropTheSchema() throws Exception {
        migration.close();
    }

    @Test
    void csvsStoredBeforeV6BecomeChunksThatDownloadTheSameBytes() throws Exception {
        PGSimpleDataSource db = migration.migrate("5");

        byte[] csv = new byte[9 * 1024 * 1024 + 17]; // three chunks: 4 MiB, 4 MiB, 1 MiB + 17
        new Random(16).nextBytes(csv);
        UUID team = UUID.randomUUID();
        UUID owner = UUID.randomUUID();
        UUID done = UUID.randomUUID();
        UUID failed = UUID.randomUUID();
        OffsetDateTime now = OffsetDateTime.now();
        exec("INSERT INTO team (id, slug, name) VALUES (?, ?, 'Migration')", team, "migration-" + team);
        exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, 'Owner')", owner, "owner-" + owner);
        String insert = "INSERT INTO background_task (id, kind, team_id, owner_id, scope, status, run_at, created_at,"
                + " updated_at, result_csv, expires_at) VALUES (?, 'EXPORT', ?, ?, 'TEAM', ?, ?, ?, ?, ?, ?)";
        exec(insert, done, team, owner, "COMPLETED", now, now, now, csv, now.plusHours(24));
        exec(insert, failed, team, owner, "FAILED", now, now, now, null, null);

        migration.migrate(null);

        JdbcTaskLedger ledger = new JdbcTaskLedger();
        ledger.jdbc = new Jdbc(db);
        BackgroundTask row = ledger.find(done).orElseThrow();
        assertEquals(csv.length, row.resultBytes());
        assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(csv)), row.resultDigest());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExportResultStore store = new ExportResultStore(new Jdbc(db), ledger);
        store.writeResult(store.storedResult(done).orElseThrow(), out);
        assertArrayEquals(csv, out.toByteArray());
        assertEquals(3, count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", done));
        assertFalse(ledger.find(failed).orElseThrow().hasResult());
        assertTrue(store.storedResult(failed).isEmpty());
        assertEquals(0, count("SELECT count(*) FROM information_schema.columns WHERE table_schema = ?"
                + " AND table_name = 'background_task' AND column_name = 'result_csv'", schema));
    }

    private void exec(String sql, Object... args) throws Exception {
        migration.exec(sql, args);
    }

    private long count(String sql, Object... args) throws Exception {
        return Long.parseLong(migration.strings(sql, args).get(0));
    }
}
