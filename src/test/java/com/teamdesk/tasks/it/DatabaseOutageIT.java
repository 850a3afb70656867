package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The server heals by itself when its PostgreSQL connections are lost (PostgreSQL restarted, a
 * failover, backends terminated): the pooled connections of the deployed server are killed with
 * {@code pg_terminate_backend}, then the API answers again without a server restart, every answer
 * in between is 503 {@code service.unavailable} problem+json with {@code Retry-After} (never a 500,
 * never HTML), and a task created afterwards completes (the worker healed too). docs/decisions.md
 * "Pool healing".
 *
 * <p>The class has a server of its own ({@link SharedServer#own}) whose connections (pool and live listener) all
 * carry its {@code application_name}; the kill picks exactly those, so the servers and tests that run beside
 * this class on the same database (pom.xml: the classes of their own servers run beside the others) keep theirs.
 * It still runs one after another with the classes on the public schema: its server's timers sweep that
 * schema, as theirs do.
 */
@Execution(ExecutionMode.SAME_THREAD)
class DatabaseOutageIT {
    /** The server, with its worker and timers (the application's defaults), stopped after the class. */
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.own(Map.of());

    private static final Duration TASK_TIMEOUT = Duration.ofSeconds(60);
    /** Requests in a row that must succeed for the server to count as healed. */
    private static final int HEALED_STREAK = 20;
    /** Most requests sent after the kill: a server that never heals fails the test, it does not hang it. */
    private static final int MAX_REQUESTS = 300;

    final TestData data = TestData.fromEnvironment();

    @Test
    void serverHealsAfterItsDatabaseConnectionsAreKilled() {
        Api api = Api.at(SERVER.url());
        TestTeam t = data.newTeam();
        String owner = Tokens.of(t.owner());
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Outage");
        String tasks = "teams/" + t.id() + "/tasks";
        String reminder = "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"After the outage\"}";

        // Warm: the API's and the worker's connections are in the pool.
        Reply first = api.post(tasks, owner, reminder);
        assertEquals(202, first.status(), first.toString());
        api.awaitStatus(first.json().getString("id"), owner, "COMPLETED", TASK_TIMEOUT);

        long killed = data.count("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                + " WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
                + " AND application_name = ?", SERVER.applicationName());
        assertTrue(killed > 0, "the server's connections were terminated");

        List<String> seen = new ArrayList<>();
        String created = null;
        int streak = 0;
        for (int i = 0; streak < HEALED_STREAK; i++) {
            assertTrue(i < MAX_REQUESTS, "the server did not heal within " + MAX_REQUESTS + " requests after "
                    + killed + " of its connections were killed; answers: " + seen);
            Reply r = i % 2 == 0 ? api.post(tasks, owner, reminder) : api.get(tasks + "?limit=5", owner);
            seen.add(String.valueOf(r.status()));
            if (r.status() == 202 || r.status() == 200) {
                streak++;
                if (r.status() == 202) {
                    created = r.json().getString("id");
                }
                continue;
            }
            streak = 0;
            ApiIT.assertProblem(r, 503, "service.unavailable");
            assertEquals("5", r.header("Retry-After"), r.toString());
            assertFalse(r.body().contains("SQL") || r.body().contains("terminat") || r.body().contains("RAR"),
                    "no exception text: " + r);
            pause();
        }
        assertTrue(created != null, "a task was created after the kill: " + seen);
        // The pool drops a connection once it is known dead (validation on every borrow), so each killed
        // connection fails at most one request. A pool that hands the same dead connection out again
        // fails request after request, and heals (if ever) only by accident.
        System.out.println("DatabaseOutageIT: killed " + killed + " connections; answers after the kill: " + seen);
        long failed = seen.stream().filter(s -> !s.startsWith("2")).count();
        assertTrue(failed <= killed, failed + " requests failed after " + killed + " connections were killed: "
                + "a dead connection was handed out again; answers: " + seen);
        api.awaitStatus(created, owner, "COMPLETED", TASK_TIMEOUT);
    }

    /** Bounded poll interval between requests during the outage (not used for ordering). */
    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
