package com.teamdesk.tasks.it.lifecycle;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import com.teamdesk.tasks.it.export.RowLock;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.testing.RedisPrefixCleanup;
import jakarta.mail.Address;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issues 54 and 53 on two real server processes sharing one database and one Redis, timers and workers on (one boot of
 * two servers for both: boots are most of the suite's time):
 * <ul>
 * <li>R60: both relay one outbox to a real SMTP server (GreenMail, in this JVM) through a proxy that can lose a reply
 * ({@link SmtpCutProxy}); reminders are created through the API and run by the servers' own workers, their emails
 * leave through the servers' own relays (every second, on their timer threads);</li>
 * <li>R59, last (it kills one server): a ticket's breach escalation is due; whichever server's worker takes it is
 * stopped inside the escalation's transaction — after the BREACHED, the owners' notification and the event were
 * written, before the lease-checked completion — and killed with SIGKILL there; the other takes the run over (the
 * queue's stalled check or R19) and breaches the clock once. "Inside the transaction" is made deterministic with row
 * locks held by the test ({@link RowLock}), as {@link ReminderCrashIT} does: the clock's row lock stops the worker at
 * its clock {@code FOR UPDATE} (after its claim, the team lock and the lease read); the test then takes the task row
 * ({@code FOR NO KEY UPDATE}) and lets the clock go, so the worker writes and stops at its completion UPDATE. The
 * statement it left waiting is terminated after the kill, so the dead process writes nothing more.</li>
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoServersIT {
    /** Deletes the Redis keys of this class's prefixes after the class, when its servers have stopped. */
    @RegisterExtension
    static final RedisPrefixCleanup REDIS = new RedisPrefixCleanup();

    /** This class's schema, created before its tests and dropped after them. */
    @RegisterExtension
    static final PrivateSchema data = PrivateSchema.perClass();

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(TwoServersIT.class.getName());
    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofSeconds(60);
    /** Start of the escalation's clock lock (SlaClocks.lockForEscalation). */
    private static final String CLOCK_LOCK = "SELECT k.title, k.assignee_id";
    /** Start of the lease-checked completion (JdbcTaskLedger.complete). */
    private static final String COMPLETION = "UPDATE background_task SET status = 'COMPLETED'";
    private static final Duration CONVERGE = Duration.ofSeconds(120);
    private static final String DOMAIN = "teamdesk.test";

    private static int smtpPort;
    private static GreenMail mail;
    private static SmtpCutProxy proxy;
    private static List<ServerProcess> servers;
    private static Api api;

    @BeforeAll
    static void start() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            smtpPort = s.getLocalPort();
        }
        mail = startMail();
        proxy = SmtpCutProxy.start(smtpPort);
        Map<String, String> env = ServerProcess.env(data, REDIS.create("it-two"), Map.of());
        env.put("TEAMDESK_MAIL_HOST", "127.0.0.1");
        env.put("TEAMDESK_MAIL_PORT", Integer.toString(proxy.port()));
        env.put("TEAMDESK_MAIL_FROM", "TeamDesk <desk@" + DOMAIN + ">");
        env.put("TEAMDESK_MAIL_CONNECT_TIMEOUT_MS", "2000");
        env.put("TEAMDESK_MAIL_TIMEOUT_MS", "5000");
        env.put("TEAMDESK_OUTBOX_BACKOFF_MS", "300");
        env.put("TEAMDESK_OUTBOX_UNREACHABLE_RETRY_MS", "300");
        // a dead worker's run is taken over within seconds: a 2 s queue lock, a 1 s stalled check, a 5 s stall threshold
        env.put("TEAMDESK_TIMERS_ENABLED", "true");
        env.put("TEAMDESK_WORKER_LOCK_DURATION_MS", "2000");
        env.put("TEAMDESK_WORKER_LOCK_RENEW_MS", "500");
        env.put("TEAMDESK_WORKER_STALLED_INTERVAL_MS", "1000");
        env.put("TEAMDESK_WORKER_SHUTDOWN_GRACE_MS", "5000");
        env.put("TEAMDESK_RECOVERY_STALL_THRESHOLD_MS", "5000");
        servers = ServerProcess.startReady(READY, env, "two-a", "two-b");
        api = Api.at(servers.get(0).root().toURL());
    }

    @AfterAll
    static void stop() throws Exception {
        if (servers != null) {
            for (ServerProcess s : servers) {
                s.close();
            }
        }
        if (proxy != null) {
            proxy.close();
        }
        if (mail != null) {
            mail.stop();
        }
    }

    /**
     * A reminder's email: to the assignee who has an address, with the outbox row's Message-ID, text and HTML, and
     * every piece a member wrote on one line in the headers (CR, LF and direction marks in the title and the message
     * reach no header); the owner who turned reminder emails off gets a row marked OPTED_OUT, the customer without an
     * address one marked NO_ADDRESS.
     */
    @Test
    void aRemindersEmailLeavesOnceWithItsRowsMessageIdAndNoInjectedHeader() throws Exception {
        TestTeam t = data.newTeam();
        settings(t.staff(), "{\"email\":\"staff-" + t.staff() + "@example.test\"}");
        settings(t.owner(), "{\"email\":\"owner-" + t.owner() + "@example.test\",\"kinds\":{\"REMINDER\":false}}");
        UUID ticket = ticket(t, "Printer\r\nBcc: victim@example.test \u202Eon fire");
        String before = "staff-" + t.staff() + "@example.test";
        Reply r = api.post("teams/" + t.id() + "/tasks", Tokens.of(t.staff()), "{\"kind\":\"REMINDER\",\"ticketId\":\""
                + ticket + "\",\"message\":\"Look\\r\\nX-Evil: 1\\r\\n\\r\\nnow\",\"recipients\":\"TEAM_STAFF\"}");
        assertEquals(202, r.status(), r.toString());
        String task = r.json().getString("id");

        awaitTrue(() -> received(before).size() == 1, "the assignee's email arrived");
        MimeMessage m = received(before).get(0);
        UUID row = (UUID) data.value("SELECT o.id FROM outbox_message o JOIN notification n ON n.id = o.notification_id"
                + " WHERE n.task_id = ?::uuid AND o.recipient_id = ?", task, t.staff());
        String states = data.value("SELECT string_agg(o.state, ',' ORDER BY o.state) FROM outbox_message o JOIN"
                + " notification n ON n.id = o.notification_id WHERE n.task_id = ?::uuid", task).toString();
        assertAll(() -> assertEquals("<" + row + "@" + DOMAIN + ">", m.getMessageID()),
                () -> assertArrayEquals(new Address[] {new InternetAddress(before)}, m.getAllRecipients()),
                () -> assertNull(m.getHeader("X-Evil"), "no header from the message"),
                () -> assertNull(m.getHeader("Bcc"), "no header from the title"),
                () -> assertTrue(m.getSubject().startsWith("["), m.getSubject()),
                () -> assertTrue(m.getSubject().chars().noneMatch(c -> c == '\r' || c == '\n' || c == '\u202E'),
                        m.getSubject()),
                () -> assertTrue(m.getContentType().startsWith("multipart/alternative"), m.getContentType()),
                () -> assertEquals("OPTED_OUT,SENT", states, "the owner opted out; the staff member got it"),
                () -> assertEquals("SENT 1 0", data.value("SELECT state || ' ' || attempts || ' ' || unknowns FROM"
                        + " outbox_message WHERE id = ?", row)));
        // the recipient sees where it went (R60): the notification's email delivery
        jakarta.json.JsonObject delivery = api.get("me/notifications", Tokens.of(t.staff())).json().getJsonArray("items")
                .getValuesAs(jakarta.json.JsonObject.class).stream().filter(n -> task.equals(n.getString("taskId")))
                .findFirst().orElseThrow().getJsonArray("deliveries").getJsonObject(0);
        assertEquals("EMAIL SENT 1", delivery.getString("channel") + " " + delivery.getString("state") + " "
                + delivery.getInt("attempts"), delivery.toString());
        settings(t.staff(), "{\"email\":null}"); // a staff member without an address: a NO_ADDRESS row
        Reply again = api.post("teams/" + t.id() + "/tasks", Tokens.of(t.staff()), "{\"kind\":\"REMINDER\",\"ticketId\":\""
                + ticket + "\",\"message\":\"Again\",\"recipients\":\"ASSIGNEE\"}");
        assertEquals(202, again.status(), again.toString());
        awaitTrue(() -> "NO_ADDRESS".equals(data.value("SELECT o.state FROM outbox_message o JOIN notification n ON"
                + " n.id = o.notification_id WHERE n.task_id = ?::uuid", again.json().getString("id"))),
                "a recipient without an address: recorded, not dropped");
    }

    /**
     * R60's settings through the API: the member's own; every malformed piece refused (400, its code) and nothing
     * changed — CR/LF, a name part, a direction mark, an address too long, a kind not a kind, a choice not a boolean.
     */
    @Test
    void emailSettingsAreTheMembersOwnAndMalformedOnesChangeNothing() {
        TestTeam t = data.newTeam();
        String me = "{\"email\":\"ada-" + t.staff() + "@example.test\",\"kinds\":{\"DIGEST\":false}}";
        settings(t.staff(), me);
        String token = Tokens.of(t.staff());
        Reply read = api.get("me/email-settings", token);
        assertEquals(200, read.status(), read.toString());
        assertEquals("ada-" + t.staff() + "@example.test", read.json().getString("email"));
        assertEquals(false, read.json().getJsonObject("kinds").getBoolean("DIGEST"));
        Map<String, String> refusals = Map.of(
                "{\"email\":\"a@b.test\\r\\nBcc: x@evil.test\"}", "settings.email_invalid",
                "{\"email\":\"Ada <ada@b.test>\"}", "settings.email_invalid",
                "{\"email\":\"ada@b.test\\u202e\"}", "settings.email_invalid",
                "{\"email\":\"" + "a".repeat(250) + "@b.test\"}", "settings.email_invalid",
                "{\"email\":5}", "settings.email_invalid",
                "{\"email\":\"no-at-sign\"}", "settings.email_invalid",
                "{\"kinds\":{\"reminder\":true}}", "settings.invalid",
                "{\"kinds\":{\"REMINDER\":\"no\"}}", "settings.invalid",
                "{\"kinds\":[]}", "settings.invalid",
                "{\"email\":null,\"bcc\":\"x@evil.test\"}", "request.malformed");
        refusals.forEach((body, code) -> {
            Reply r = api.send("PUT", api.uri("me/email-settings"), token, body, null);
            assertEquals(400, r.status(), body + " -> " + r);
            assertEquals(code, r.problemCode().orElse(null), body + " -> " + r);
        });
        assertEquals(read.json(), api.get("me/email-settings", token).json(), "nothing changed");
    }

    /**
     * The mail server is down while 200 reminders run on two servers: their emails wait in the outbox, given back
     * without an attempt while nobody answers; once the server is back, each leaves exactly once (two relays never
     * send one row), with one attempt each.
     */
    @Test
    void twoHundredEmailsWaitOutAnOutageAndLeaveOnceEachFromTwoRelays() throws Exception {
        TestTeam t = data.newTeam();
        String to = "flood-" + t.staff() + "@example.test";
        data.exec("UPDATE app_user SET email = ? WHERE id = ?", to, t.staff());
        UUID ticket = ticket(t, "Flood");
        mail.stop();
        try {
            String items = java.util.stream.IntStream.range(0, 200).mapToObj(i -> "{\"kind\":\"REMINDER\",\"ticketId\":\""
                    + ticket + "\",\"message\":\"Reminder " + i + "\"}").collect(Collectors.joining(","));
            Reply batch = api.post("teams/" + t.id() + "/batches", Tokens.of(t.staff()), "{\"items\":[" + items + "]}");
            assertEquals(202, batch.status(), batch.toString());
            awaitTrue(() -> data.count("SELECT count(*) FROM outbox_message WHERE team_id = ? AND state = 'PENDING'",
                    t.id()) == 200, "200 emails in the outbox");
            awaitTrue(() -> data.count("SELECT count(*) FROM outbox_message WHERE team_id = ? AND attempts = 0 AND"
                    + " last_error LIKE 'mail server unreachable%'", t.id()) > 0, "the relays found nobody to send to");
        } finally {
            mail = startMail();
        }
        awaitTrue(() -> received(to).size() >= 200, "200 emails arrived");
        List<String> ids = new ArrayList<>();
        for (MimeMessage m : received(to)) {
            ids.add(m.getMessageID());
        }
        Set<String> distinct = Set.copyOf(ids);
        assertAll(() -> assertEquals(200, ids.size(), "no email twice"),
                () -> assertEquals(200, distinct.size(), "each row once"),
                () -> assertEquals(200L, data.count("SELECT count(*) FROM outbox_message WHERE team_id = ? AND state ="
                        + " 'SENT' AND attempts = 1", t.id()), "the outage burned no attempt"),
                () -> assertEquals(200L, data.count("SELECT count(*) FROM outbox_message WHERE team_id = ? AND"
                        + " server_reply LIKE '250%'", t.id()), "each with the server's reply"));
    }

    /**
     * The connection ends after the message's final dot, before the server's reply: the server has the message, the
     * relay does not know. The row is recorded as unknown and sent again with the same Message-ID: the receiver sees it
     * twice and can tell it is one message.
     */
    @Test
    void aReplyLostAfterTheFinalDotIsUnknownAndResentWithTheSameMessageId() throws Exception {
        TestTeam t = data.newTeam();
        String to = "unknown-" + t.staff() + "@example.test";
        data.exec("UPDATE app_user SET email = ? WHERE id = ?", to, t.staff());
        UUID ticket = ticket(t, "Lost reply");
        int cuts = proxy.cuts();
        proxy.armCutAfterFinalDot();
        Reply r = api.post("teams/" + t.id() + "/tasks", Tokens.of(t.staff()), "{\"kind\":\"REMINDER\",\"ticketId\":\""
                + ticket + "\",\"message\":\"Once\"}");
        assertEquals(202, r.status(), r.toString());
        awaitTrue(() -> data.count("SELECT count(*) FROM outbox_message WHERE team_id = ? AND state = 'SENT'", t.id()) == 1,
                "sent in the end");
        List<MimeMessage> got = received(to);
        String row = data.value("SELECT id::text FROM outbox_message WHERE team_id = ?", t.id()).toString();
        assertAll(() -> assertEquals(cuts + 1, proxy.cuts(), "one reply was lost"),
                () -> assertEquals(2, got.size(), "the receiver saw it twice: once unanswered, once answered"),
                () -> assertEquals(List.of("<" + row + "@" + DOMAIN + ">", "<" + row + "@" + DOMAIN + ">"),
                        got.stream().map(TwoServersIT::messageId).toList(), "with one Message-ID"),
                () -> assertEquals("SENT 2 1", data.value("SELECT state || ' ' || attempts || ' ' || unknowns FROM"
                        + " outbox_message WHERE team_id = ?", t.id())));
        String metrics = Api.atRoot(servers.get(0).root()).getRoot("metrics").body()
                + Api.atRoot(servers.get(1).root()).getRoot("metrics").body();
        assertTrue(metrics.lines().anyMatch(l -> l.startsWith("teamdesk_outbox_deliveries_total{")
                && l.contains("outcome=\"unknown\"") && !l.endsWith(" 0.0")), metrics);
    }

    /** R59, last: it kills one of the two servers (see the class). */
    @Test
    @org.junit.jupiter.api.Order(Integer.MAX_VALUE)
    void twoServersAndASigkillInsideTheBreachGiveOneBreach() throws Exception {
        TestTeam t = data.newTeam();
        String token = Tokens.of(t.staff());
        String killed;
        ServerProcess a = servers.get(0);
        ServerProcess b = servers.get(1);
        Reply policies = api.send("PUT", api.uri("teams/" + t.id() + "/sla-policies"), Tokens.of(t.owner()),
                "{\"policies\":[{\"priority\":\"NORMAL\",\"firstResponseMinutes\":30,\"resolutionMinutes\":600}]}",
                null);
        assertEquals(200, policies.status(), policies.toString());
        Reply created = api.post("teams/" + t.id() + "/tickets", token, "{\"title\":\"VPN down\",\"assigneeId\":\""
                + t.staff() + "\"}");
        assertEquals(201, created.status(), created.toString());
        UUID ticket = UUID.fromString(created.json().getString("id"));
        UUID breach = (UUID) data.value("SELECT id FROM background_task WHERE once_key = ?",
                "sla:" + ticket + ":FIRST_RESPONSE:BREACH:1");

        // the breach instant, a second ago: the clock's due instant and its breach's run_at (what the dispatch sweeps
        // of both servers see as due), moved together as thirty minutes passing would move them
        data.exec("UPDATE ticket_sla_clock SET due_at = date_trunc('milliseconds', now()) - interval '1 second'"
                + " WHERE ticket_id = ? AND metric = 'FIRST_RESPONSE'", ticket);
        java.sql.Timestamp due = (java.sql.Timestamp) data.value("SELECT due_at FROM ticket_sla_clock WHERE ticket_id = ? AND metric ="
                + " 'FIRST_RESPONSE'", ticket);
        try (RowLock clockLock = RowLock.onRows(data::connection, "ticket_sla_clock", "ticket_id = ?", ticket,
                "FOR UPDATE")) {
            data.exec("UPDATE background_task SET run_at = ? WHERE id = ?", due, breach);
            int worker = clockLock.awaitBlocked(CLOCK_LOCK, SYNC);
            killed = (String) data.value("SELECT application_name FROM pg_stat_activity WHERE pid = ?", worker);
            try (RowLock taskLock = RowLock.onRow(data::connection, "background_task", breach, "FOR NO KEY UPDATE")) {
                clockLock.release();
                taskLock.awaitBlocked(COMPLETION, SYNC);
                ServerProcess victim = killed.equals(ServerProcess.applicationName("two-a")) ? a : b;
                LOG.info(() -> "killing " + victim + " inside the breach's transaction");
                victim.process().destroyForcibly();
                assertTrue(victim.awaitExit(SYNC), "SIGKILL");
                assertEquals(1, taskLock.terminateWaiters(), "the dead server's completion was still waiting");
            }
        }
        awaitTrue(() -> "COMPLETED".equals(data.value("SELECT status FROM background_task WHERE id = ?", breach)),
                "the survivor took the run over");
        String outcome = data.value("SELECT status FROM background_task WHERE id = ?", breach) + "; notifications "
                + data.count("SELECT count(*) FROM notification WHERE task_id = ? AND recipient_id = ?", breach, t.owner())
                + " to the owner, " + data.count("SELECT count(*) FROM notification WHERE task_id = ? AND recipient_id <> ?",
                        breach, t.owner()) + " to others; events "
                + data.count("SELECT count(*) FROM system_event WHERE task_id = ? AND kind = ?", breach,
                        com.teamdesk.tasks.task.escalation.EscalationTransaction.BREACH_EVENT)
                + "; clock " + data.value("SELECT state || ' v' || version || CASE WHEN ended_at = ? THEN ' at its due"
                        + " instant' ELSE ' at ' || ended_at END FROM ticket_sla_clock WHERE ticket_id = ? AND metric ="
                        + " 'FIRST_RESPONSE'", due, ticket);
        long otherNotes = data.count("SELECT count(*) FROM notification n JOIN background_task e ON e.id = n.task_id"
                + " WHERE e.kind = 'SLA_ESCALATION' AND e.id <> ?", breach);
        assertAll(() -> assertTrue(killed.startsWith(ServerProcess.APPLICATION_NAME + "-two-"), killed),
                () -> assertEquals("COMPLETED; notifications 1 to the owner, 0 to others; events 1; clock BREACHED v2 at its due"
                        + " instant",
                        outcome, "after the kill and the takeover"),
                () -> assertEquals(0, otherNotes, "no other escalation ran"));
    }

    // ---- helpers ----

    /** Sets a member's email settings through the API (R60). */
    private static void settings(UUID user, String body) {
        Reply r = api.send("PUT", api.uri("me/email-settings"), Tokens.of(user), body, null);
        assertEquals(200, r.status(), r.toString());
    }

    /** @return an OPEN ticket of the team's customer, assigned to its staff member */
    private static UUID ticket(TestTeam t, String title) {
        UUID id = UUID.randomUUID();
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) VALUES (?, ?, ?, 'Body', 'OPEN', 'NORMAL', ?, ?, now(), now(), 1)", id, t.id(),
                title, t.staff(), t.customer());
        return id;
    }

    private static GreenMail startMail() {
        GreenMail g = new GreenMail(new ServerSetup(smtpPort, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        g.start();
        return g;
    }

    /** @return what the mail server received for {@code address}, oldest first */
    private static List<MimeMessage> received(String address) {
        List<MimeMessage> out = new ArrayList<>();
        for (MimeMessage m : mail.getReceivedMessages()) {
            try {
                if (Arrays.stream(m.getAllRecipients()).anyMatch(a -> ((InternetAddress) a).getAddress()
                        .equalsIgnoreCase(address))) {
                    out.add(m);
                }
            } catch (jakarta.mail.MessagingException e) {
                throw new IllegalStateException(e);
            }
        }
        return out;
    }

    private static String messageId(MimeMessage m) {
        try {
            return m.getMessageID();
        } catch (jakarta.mail.MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Bounded poll (detects a state the servers reach on their own threads; orders nothing): {@link Poll#until}. */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        Poll.until(condition, CONVERGE, what + ": not within " + CONVERGE);
    }
}
