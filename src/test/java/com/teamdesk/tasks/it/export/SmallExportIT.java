package com.teamdesk.tasks.it.export;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.it.support.Tokens;
import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The cheapest task there is, many at once, through the production path (issue 16, P2 engine): SELF
 * exports of a member with no tickets, created through the API and run by the server's worker with its
 * default concurrency, then as many again inserted in one statement and handed to the queue by the
 * dispatch sweep in one batch (the engine alone, whose slots then claim together). Each must complete with the 0-row CSV (BOM and header) stored as exactly one
 * chunk of its completing execution, and no other chunk left behind. The class asserts behaviour only;
 * it prints the database's commit count per task (server, timers and this test's polling together) as
 * a rough cost figure for the notes.
 */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
@RunAsClient
class SmallExportIT {
    private static final int TASKS = 60;
    private static final int BULK = 200;
    private static final String HEADER = "id,title,status,priority,assignee,requester,created_at,updated_at,version,body";

    @Deployment(testable = false)
    static WebArchive deployment() {
        // The combined claims and export completions are opt-in (off by default: measured slower); this class
        // runs the server with them on, so the opt-in path is proven on the production path too.
        return TestDeployments.app(Map.of("teamdesk.task.claim-batch", "16", "teamdesk.export.completion-batch", "16"));
    }

    @ArquillianResource
    URL url;

    final TestData data = TestData.fromEnvironment();

    @Test
    void manyZeroRowExportsEachStoreOneChunkWithTheirCompletion() throws Exception {
        Api api = Api.at(url);
        TestTeam t = data.newTeam();
        String token = Tokens.of(t.customer());
        long commitsBefore = commits();
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            Reply created = api.post("teams/" + t.id() + "/tasks", token, "{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}");
            assertEquals(202, created.status(), created.toString());
            ids.add(UUID.fromString(created.json().getString("id")));
        }
        Poll.until(() -> data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND status = 'COMPLETED'",
                t.id()) == TASKS, Duration.ofSeconds(120), "every export completes");
        System.out.printf("SmallExportIT: %d tasks, %.2f commits per task in the database (all sessions)%n", TASKS,
                (commits() - commitsBefore) / (double) TASKS);

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        expected.write((HEADER + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (UUID id : ids) {
            assertEquals(1L, data.count("SELECT count(*) FROM task_result_chunk c JOIN background_task t ON t.id = c.task_id"
                    + " WHERE c.task_id = ? AND c.seq = 0 AND c.execution_id = t.result_execution_id", id),
                    "the one chunk is the completing execution's");
            assertEquals(expected.size(), ((Number) data.value("SELECT result_size FROM background_task WHERE id = ?", id))
                    .intValue());
            assertEquals("0 tickets exported", data.value("SELECT result_summary FROM background_task WHERE id = ?", id));
        }
        assertEquals((long) TASKS, data.count("SELECT count(*) FROM task_result_chunk c JOIN background_task t"
                + " ON t.id = c.task_id WHERE t.team_id = ?", t.id()), "no chunk besides the results");
        Reply csv = api.get("tasks/" + ids.get(TASKS - 1) + "/result", token);
        assertEquals(200, csv.status(), csv.toString());
        assertArrayEquals(expected.toByteArray(), csv.bytes(), "BOM and header, nothing else");

        // The engine alone (as bench engine runs it): rows inserted at once, handed to the queue by the
        // dispatch sweep in one batch, so the worker's slots fetch and claim them at the same moments.
        commitsBefore = commits();
        data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, run_at, created_at, updated_at) SELECT gen_random_uuid(), 'EXPORT', team_id, owner_id,"
                + " 'SELF', filters, 'WAITING', 0, 0, 0, now(), now(), now() FROM background_task, generate_series(1, ?)"
                + " WHERE id = ?", BULK, ids.get(0));
        Poll.until(() -> data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND status = 'COMPLETED'",
                t.id()) == TASKS + BULK, Duration.ofSeconds(120), "every bulk export completes");
        System.out.printf("SmallExportIT: %d bulk tasks, %.2f commits per task in the database (all sessions)%n", BULK,
                (commits() - commitsBefore) / (double) BULK);
        assertEquals((long) TASKS + BULK, data.count("SELECT count(*) FROM background_task t JOIN task_result_chunk c"
                + " ON c.task_id = t.id AND c.execution_id = t.result_execution_id AND c.seq = 0"
                + " WHERE t.team_id = ? AND t.attempts = 1 AND t.result_size = ?"
                + " AND t.result_summary = '0 tickets exported'", t.id(), expected.size()),
                "each export completed once, by its first execution, with its one chunk");
        assertEquals((long) TASKS + BULK, data.count("SELECT count(*) FROM task_result_chunk c JOIN background_task t"
                + " ON t.id = c.task_id WHERE t.team_id = ?", t.id()), "no chunk besides the results");
    }

    private long commits() {
        return ((Number) data.value("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"))
                .longValue();
    }
}
