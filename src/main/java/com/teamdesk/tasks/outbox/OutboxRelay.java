package com.teamdesk.tasks.outbox;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.URLName;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.angus.mail.smtp.SMTPAddressFailedException;
import org.eclipse.angus.mail.smtp.SMTPSendFailedException;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Issue 54 (R60): the outbox's relay, on every instance whose worker runs and whose mail host is set. Every second it
 * claims up to {@code teamdesk.outbox.batch-size} due rows under a lease of its own ({@link OutboxStore#claim}:
 * {@code SKIP LOCKED}, so two instances never hold one row), sends them over one SMTP connection and records each
 * outcome under that lease:
 * <ul>
 * <li>the server's 2xx: SENT, with its reply;</li>
 * <li>its 4xx, or a connection lost before the message's final dot: tried again after a backoff (an attempt);</li>
 * <li>its 5xx, or an address that is not one: FAILED;</li>
 * <li>a connection lost after the final dot, before the reply: <em>unknown</em> — the server may have taken it. It is
 * sent again after the backoff with the same {@code Message-ID} (an attempt, counted in {@code unknowns}): a message
 * is never lost, and a receiver that sees it twice can tell it is one;</li>
 * <li>no connection at all (refused, timed out): the rows are given back without an attempt, due again in
 * {@code teamdesk.outbox.unreachable-retry-ms} (an outage of the mail server burns nobody's attempts).</li>
 * </ul>
 * A relay whose lease expired writes nothing ({@link OutboxStore}); the lease ({@code teamdesk.outbox.lease-ms}) is
 * longer than a batch can take. The timer skips a tick while the last one still runs; bean-managed, so no
 * transaction of the container's wraps it: each statement commits on its own.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionManagement(TransactionManagementType.BEAN)
public class OutboxRelay {
    private static final Logger LOG = Logger.getLogger(OutboxRelay.class.getName());

    @Inject
    MailSettings settings;

    @Inject
    OutboxStore store;

    @Inject
    OutboxMetrics metrics;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.enabled", defaultValue = "true")
    boolean workerEnabled;

    @Inject
    @ConfigProperty(name = "teamdesk.outbox.relay-enabled", defaultValue = "true")
    boolean relayEnabled;

    @Inject
    @ConfigProperty(name = "teamdesk.outbox.batch-size", defaultValue = "50")
    int batchSize;

    @Inject
    @ConfigProperty(name = "teamdesk.outbox.lease-ms", defaultValue = "300000")
    long leaseMs;

    @Inject
    @ConfigProperty(name = "teamdesk.outbox.max-attempts", defaultValue = "10")
    int maxAttempts;

    @Inject
    @ConfigProperty(name = "teamdesk.outbox.backoff-ms", defaultValue = "30000")
    long backoffMs;

    @Inject
    @ConfigProperty(name = "teamdesk.outbox.unreachable-retry-ms", defaultValue = "15000")
    long unreachableRetryMs;

    private final AtomicBoolean running = new AtomicBoolean();

    @Schedule(second = "*", minute = "*", hour = "*", persistent = false, info = "outbox relay (R60)")
    void tick() {
        if (!workerEnabled || !relayEnabled || !settings.enabled() || !running.compareAndSet(false, true)) {
            return;
        }
        try {
            while (relayOnce() == batchSize) {
                // a full batch: more may be due (at most a few batches a second, one connection each)
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "outbox relay: " + e.getMessage() + " (the rows are taken again when their lease ends)",
                    e);
        } finally {
            running.set(false);
        }
    }

    /**
     * One batch: claim, connect, send, record.
     *
     * @return how many rows were claimed
     */
    int relayOnce() {
        Instant now = clock.instant();
        UUID lease = UUID.randomUUID();
        List<Outgoing> batch = store.claim(lease, now, now.plusMillis(leaseMs), batchSize);
        if (batch.isEmpty()) {
            return 0;
        }
        Session session = Session.getInstance(settings.sessionProperties());
        InternetAddress from = settings.from();
        String domain = settings.messageIdDomain();
        OutboxTransport t = null;
        int i = 0;
        try {
            t = connect(session);
            for (; i < batch.size(); i++) {
                Outgoing o = batch.get(i);
                if (!t.isConnected()) {
                    t = connect(session); // the last send broke the connection: a new one for the rest
                }
                SendOutcome outcome = send(t, session, o, from, domain, lease);
                metrics.delivered(outcome);
            }
        } catch (MessagingException e) { // no connection: nothing of the rest was offered
            List<UUID> rest = batch.subList(i, batch.size()).stream().map(Outgoing::id).toList();
            int released = store.release(rest, lease, "mail server unreachable: " + e.getMessage(),
                    clock.instant().plusMillis(unreachableRetryMs), clock.instant());
            metrics.deferred(released);
            LOG.log(Level.FINE, () -> "outbox relay: " + released + " deferred, " + e.getMessage());
        } finally {
            close(t);
        }
        return batch.size();
    }

    private OutboxTransport connect(Session session) throws MessagingException {
        boolean tls = settings.security() == MailSettings.Security.TLS;
        OutboxTransport t = new OutboxTransport(session, new URLName(tls ? "smtps" : "smtp", settings.host(),
                settings.port(), null, null, null), tls);
        t.connect(settings.host(), settings.port(), settings.user().orElse(null),
                settings.user().isPresent() ? settings.password() : null);
        return t;
    }

    private SendOutcome send(OutboxTransport t, Session session, Outgoing o, InternetAddress from, String domain, UUID lease) {
        SendOutcome outcome;
        String note;
        t.takeDotSent();
        try {
            MimeMessage m = MailComposer.compose(session, o, from, domain);
            t.sendMessage(m, m.getAllRecipients());
            outcome = SendOutcome.SENT;
            note = t.getLastServerResponse();
        } catch (AddressException e) {
            outcome = SendOutcome.PERMANENT;
            note = "not an address: " + e.getMessage();
        } catch (MessagingException e) {
            int code = replyCode(e);
            boolean dot = t.takeDotSent();
            outcome = code >= 500 ? SendOutcome.PERMANENT : code >= 400 ? SendOutcome.TRANSIENT
                    : dot ? SendOutcome.UNKNOWN : SendOutcome.LOST;
            note = (outcome == SendOutcome.UNKNOWN ? "unknown: the connection ended after the message, before the"
                    + " server's reply; " : "") + (code > 0 ? code + " " : "") + e.getMessage();
            if (code < 400) {
                close(t); // no reply: the connection is not to be trusted
            }
        }
        Instant now = clock.instant();
        boolean held = switch (outcome) {
            case SENT -> store.sent(o.id(), lease, note, now);
            case PERMANENT -> store.failed(o.id(), lease, note, now);
            case TRANSIENT, UNKNOWN, LOST -> store.retry(o.id(), lease, note, outcome == SendOutcome.UNKNOWN,
                    now.plus(backoff(o.attempts())), maxAttempts, now);
        };
        if (!held) {
            SendOutcome lost = outcome;
            LOG.warning(() -> "outbox relay: the lease of " + o.id() + " ended before its outcome (" + lost
                    + ") was recorded; another relay took it over");
        }
        return outcome;
    }

    /** @return the SMTP reply code a failure carries, or -1 when the server did not reply */
    static int replyCode(MessagingException e) {
        for (Exception x = e; x != null; x = x instanceof MessagingException me ? me.getNextException() : null) {
            int rc = x instanceof SMTPSendFailedException s ? s.getReturnCode()
                    : x instanceof SMTPAddressFailedException a ? a.getReturnCode() : -1;
            if (rc >= 400 && rc < 600) {
                return rc;
            }
        }
        return -1;
    }

    /** @return {@code teamdesk.outbox.backoff-ms} doubled per attempt made, at most an hour */
    Duration backoff(int attemptsMade) {
        return Duration.ofMillis(Math.min(backoffMs << Math.min(attemptsMade, 16), 3_600_000L));
    }

    private static void close(OutboxTransport t) {
        if (t != null && t.isConnected()) {
            try {
                t.close();
            } catch (MessagingException e) {
                LOG.log(Level.FINE, "outbox relay: closing the connection", e);
            }
        }
    }
}
