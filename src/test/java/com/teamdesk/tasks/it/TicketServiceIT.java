package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.team.Ticket;
import com.teamdesk.tasks.team.TicketChanges;
import com.teamdesk.tasks.team.TicketDraft;
import com.teamdesk.tasks.team.TicketService;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.naming.InitialContext;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * In-server tests of {@link TicketService} (they run inside Payara: CDI, JTA, the app's
 * datasource), and the working example of the test infrastructure: a per-class config override
 * and a CDI alternative ({@link TestClock}, stopped at {@link TestClock#FIXED}) reach the deployed application.
 */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
class TicketServiceIT {

    @Deployment
    static WebArchive deployment() {
        return TestDeployments.app(Map.of(
                "teamdesk.worker.enabled", "false",
                "teamdesk.timers.enabled", "false",
                "teamdesk.export.max-rows", "1234"), TicketServiceIT.class, TestClock.class);
    }

    @Inject
    TicketService tickets;

    final TestData data = TestData.inServer();

    @Test
    void deploymentConfigOverridesAndAlternativesReachTheApplication() {
        var config = ConfigProvider.getConfig();
        assertEquals(1234, config.getValue("teamdesk.export.max-rows", Integer.class));
        assertTrue(config.getValue("teamdesk.redis.prefix", String.class).startsWith("it-"),
                "each deployment gets its own Redis prefix");

        TestTeam t = data.newTeam();
        TestClock.fixAt(TestClock.FIXED);
        try {
            Ticket created = tickets.create(t.customer(), t.id(), new TicketDraft("Fixed clock", null, null, null));
            assertEquals(TestClock.FIXED, created.getCreatedAt(), "the service's Clock is the test's alternative");
            assertEquals(1, created.getVersion());
        } finally {
            TestClock.reset();
        }
    }

    /**
     * PATCH takes the team lock ({@code FOR NO KEY UPDATE} on the team row) before it reads the
     * ticket, the lock the reminder transaction takes (R14): while another transaction holds it,
     * the PATCH waits on it, and it proceeds once that transaction ends.
     */
    @Test
    void patchWaitsForTheTeamLock() throws Exception {
        TestTeam t = data.newTeam();
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Locked");
        ManagedExecutorService executor = (ManagedExecutorService) new InitialContext()
                .lookup("java:comp/DefaultManagedExecutorService");
        Future<Ticket> patch;
        try (Connection holder = data.connection()) {
            holder.setAutoCommit(false);
            int holderPid;
            try (PreparedStatement ps = holder.prepareStatement(
                    "SELECT pg_backend_pid() FROM team WHERE id = ? FOR NO KEY UPDATE")) {
                ps.setObject(1, t.id());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    holderPid = rs.getInt(1);
                }
            }
            patch = executor.submit(() -> tickets.patch(t.staff(), t.id(), ticket, 1,
                    new TicketChanges(null, null, "PENDING", null, false, null)));
            awaitBlockedBy(holderPid);
            assertFalse(patch.isDone(), "the PATCH must wait while the team lock is held");
            assertEquals(1L, data.count("SELECT version FROM ticket WHERE id = ?", ticket));
            holder.commit();
        }
        Ticket after = patch.get(30, TimeUnit.SECONDS);
        assertEquals(2, after.getVersion());
        assertEquals(2L, data.count("SELECT version FROM ticket WHERE id = ?", ticket));
        assertEquals("PENDING", data.value("SELECT status FROM ticket WHERE id = ?", ticket));
    }

    /**
     * Bounded poll for a sync point (not an ordering sleep): some backend is blocked by the
     * holder's lock, running the team-lock statement.
     */
    private void awaitBlockedBy(int holderPid) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (Instant.now().isBefore(deadline)) {
            long waiting = data.count("SELECT count(*) FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))"
                    + " AND query LIKE 'SELECT 1 FROM team WHERE id = % FOR NO KEY UPDATE'", holderPid);
            if (waiting > 0) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the PATCH never waited on the team lock held by backend " + holderPid);
    }
}
