package com.teamdesk.tasks.outbox;

import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * The email of an outbox row (R60): plain text and HTML from one template, a {@code Message-ID} derived from the row
 * ({@code <row id@domain>}, the same on every resend, so a receiver can tell a resend from a new message), and every
 * piece a member wrote (names, titles, messages) made safe for a header: no line breaks, no control or direction
 * characters, cut to a bounded length; Jakarta Mail encodes what is not ASCII (RFC 2047).
 */
final class MailComposer {
    /** Characters never put in a header or a subject: controls (CR, LF, NUL …), line and paragraph separators, bidi. */
    private static final Pattern UNSAFE = Pattern.compile("[\\p{Cc}\\u2028\\u2029\\u200E\\u200F\\u202A-\\u202E"
            + "\\u2066-\\u2069\\uFEFF]+");
    private static final int SUBJECT_CHARS = 120;
    private static final int NAME_CHARS = 80;

    private MailComposer() {
    }

    /**
     * @return the message for {@code o}, its headers set and saved
     * @throws AddressException the stored address is not one address (a permanent failure)
     */
    static MimeMessage compose(Session session, Outgoing o, InternetAddress from, String idDomain)
            throws MessagingException {
        InternetAddress to = new InternetAddress(o.toAddress(), true);
        to.validate();
        try {
            to.setPersonal(oneLine(o.recipientName(), NAME_CHARS), StandardCharsets.UTF_8.name());
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e); // UTF-8 is always there
        }
        MimeMessage m = new FixedIdMessage(session, "<" + o.id() + "@" + idDomain + ">");
        m.setFrom(from);
        m.setRecipient(MimeMessage.RecipientType.TO, to);
        m.setSubject(subject(o), StandardCharsets.UTF_8.name());
        m.setSentDate(java.util.Date.from(o.createdAt()));
        m.setHeader("Auto-Submitted", "auto-generated"); // RFC 3834: no auto-replies to it
        MimeBodyPart text = new MimeBodyPart();
        text.setText(text(o), StandardCharsets.UTF_8.name(), "plain");
        MimeBodyPart html = new MimeBodyPart();
        html.setText(html(o), StandardCharsets.UTF_8.name(), "html");
        MimeMultipart alternative = new MimeMultipart("alternative", text, html);
        m.setContent(alternative);
        m.saveChanges();
        return m;
    }

    /** @return e.g. {@code [Support] Reminder: "Printer on fire" needs an answer} */
    static String subject(Outgoing o) {
        return "[" + oneLine(o.teamName(), 40) + "] " + oneLine(o.message(), SUBJECT_CHARS);
    }

    static String text(Outgoing o) {
        StringBuilder b = new StringBuilder("Hello ").append(oneLine(o.recipientName(), NAME_CHARS)).append(",\n\n")
                .append(body(o.message())).append("\n\n");
        if (o.ticketTitle() != null) {
            b.append("Ticket: ").append(oneLine(o.ticketTitle(), 200)).append('\n');
        }
        return b.append("-- \nTeamDesk, team ").append(oneLine(o.teamName(), 200))
                .append(". You get this because a task of your team notified you; turn such emails off in the console.\n")
                .toString();
    }

    static String html(Outgoing o) {
        StringBuilder b = new StringBuilder("<!DOCTYPE html><html><body><p>Hello ")
                .append(escape(oneLine(o.recipientName(), NAME_CHARS))).append(",</p><p>")
                .append(escape(body(o.message())).replace("\n", "<br>")).append("</p>");
        if (o.ticketTitle() != null) {
            b.append("<p>Ticket: <strong>").append(escape(oneLine(o.ticketTitle(), 200))).append("</strong></p>");
        }
        return b.append("<p style=\"color:#555\">TeamDesk, team ").append(escape(oneLine(o.teamName(), 200)))
                .append(". You get this because a task of your team notified you; turn such emails off in the"
                        + " console.</p></body></html>").toString();
    }

    /** @return {@code s} on one line, without unsafe characters, at most {@code max} code points */
    static String oneLine(String s, int max) {
        String one = UNSAFE.matcher(s == null ? "" : s).replaceAll(" ").replaceAll("\\s+", " ").strip();
        if (one.codePointCount(0, one.length()) <= max) {
            return one;
        }
        return one.substring(0, one.offsetByCodePoints(0, max)) + "\u2026";
    }

    /** @return a message body: its line breaks kept (as LF), every other unsafe character dropped */
    private static String body(String s) {
        StringJoiner b = new StringJoiner("\n");
        for (String line : (s == null ? "" : s).split("\\r\\n|\\r|\\n|\\u2028|\\u2029", -1)) {
            b.add(UNSAFE.matcher(line).replaceAll(""));
        }
        return b.toString().strip();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }

    /** A message whose {@code Message-ID} is the outbox row's, not a random one. */
    private static final class FixedIdMessage extends MimeMessage {
        private final String messageId;

        FixedIdMessage(Session session, String messageId) {
            super(session);
            this.messageId = messageId;
        }

        @Override
        protected void updateMessageID() throws MessagingException {
            setHeader("Message-ID", messageId);
        }
    }
}
