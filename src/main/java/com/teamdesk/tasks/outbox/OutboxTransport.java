package com.teamdesk.tasks.outbox;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.URLName;
import java.io.IOException;
import org.eclipse.angus.mail.smtp.SMTPTransport;

/**
 * Jakarta Mail's SMTP transport (Angus Mail, as the server ships it) that knows whether a send reached the message's
 * final dot (R60): a failure before it left nothing with the server (safe to send again); a failure after it — the
 * connection died before the server's reply — may have delivered the message: its outcome is <em>unknown</em>.
 */
final class OutboxTransport extends SMTPTransport {
    private boolean dotSent;

    /** @param tls TLS from the first byte ({@code smtps}) */
    OutboxTransport(Session session, URLName url, boolean tls) {
        super(session, url, tls ? "smtps" : "smtp", tls);
    }

    /** Marks the final dot as sent before it is: a failure from here on may have delivered the message. */
    @Override
    protected void finishData() throws IOException, MessagingException {
        dotSent = true;
        super.finishData();
    }

    /** @return whether the last send reached its final dot; cleared for the next */
    boolean takeDotSent() {
        boolean d = dotSent;
        dotSent = false;
        return d;
    }
}
