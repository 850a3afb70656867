package com.teamdesk.tasks.outbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Issue 54 (R60): where the relay sends email, from MicroProfile Config ({@code teamdesk.mail.*}; as environment
 * variables {@code TEAMDESK_MAIL_HOST} …). No host: no email leaves the server (the outbox still records what would
 * have). Read once; a setting that cannot be used stops the relay with a clear log line, not the application.
 */
@ApplicationScoped
public class MailSettings {
    /** How the connection to the SMTP server is protected. */
    public enum Security {
        /** Plain SMTP (a relay on the same host or network). */
        NONE,
        /** STARTTLS required after EHLO (submission, port 587). */
        STARTTLS,
        /** TLS from the first byte (SMTPS, port 465). */
        TLS
    }

    private static final Pattern DOMAIN = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
            + "(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

    @Inject
    @ConfigProperty(name = "teamdesk.mail.host")
    Optional<String> host;

    @Inject
    @ConfigProperty(name = "teamdesk.mail.port", defaultValue = "25")
    int port;

    @Inject
    @ConfigProperty(name = "teamdesk.mail.security", defaultValue = "NONE")
    String security;

    @Inject
    @ConfigProperty(name = "teamdesk.mail.user")
    Optional<String> user;

    @Inject
    @ConfigProperty(name = "teamdesk.mail.password")
    Optional<String> password;

    @Inject
    @ConfigProperty(name = "teamdesk.mail.from", defaultValue = "TeamDesk <teamdesk@localhost>")
    String from;

    @Inject
    @ConfigProperty(name = "teamdesk.mail.connect-timeout-ms", defaultValue = "10000")
    long connectTimeoutMs;

    @Inject
    @ConfigProperty(name = "teamdesk.mail.timeout-ms", defaultValue = "30000")
    long timeoutMs;

    /** @return true when a host is set: the relay sends */
    public boolean enabled() {
        return host.filter(h -> !h.isBlank()).isPresent();
    }

    /** @return the SMTP server's host */
    public String host() {
        return host.orElse("").strip();
    }

    /** @return its port */
    public int port() {
        return port;
    }

    /** @throws IllegalStateException {@code teamdesk.mail.security} is not NONE, STARTTLS or TLS */
    public Security security() {
        try {
            return Security.valueOf(security.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("teamdesk.mail.security must be NONE, STARTTLS or TLS, not " + security);
        }
    }

    /** @return the user to authenticate as, or empty (no AUTH) */
    public Optional<String> user() {
        return user.filter(u -> !u.isBlank());
    }

    /** @return the password of {@link #user} */
    public String password() {
        return password.orElse("");
    }

    /** @throws IllegalStateException {@code teamdesk.mail.from} is not one address */
    public InternetAddress from() {
        try {
            InternetAddress a = new InternetAddress(from, true);
            a.validate();
            return a;
        } catch (AddressException e) {
            throw new IllegalStateException("teamdesk.mail.from is not an address: " + e.getMessage());
        }
    }

    /** @return the domain of the Message-IDs: the sender's, or {@code teamdesk.invalid} when it is not a host name */
    public String messageIdDomain() {
        String a = from().getAddress();
        String d = a.substring(a.lastIndexOf('@') + 1);
        return DOMAIN.matcher(d).matches() ? d.toLowerCase(Locale.ROOT) : "teamdesk.invalid";
    }

    /** @return the Jakarta Mail session properties of this server */
    public Properties sessionProperties() {
        Security s = security();
        String p = s == Security.TLS ? "mail.smtps." : "mail.smtp.";
        Properties props = new Properties();
        props.setProperty(p + "host", host());
        props.setProperty(p + "port", Integer.toString(port));
        props.setProperty(p + "connectiontimeout", Long.toString(connectTimeoutMs));
        props.setProperty(p + "timeout", Long.toString(timeoutMs));
        props.setProperty(p + "writetimeout", Long.toString(timeoutMs));
        props.setProperty(p + "from", from().getAddress());
        props.setProperty(p + "auth", Boolean.toString(user().isPresent()));
        if (s == Security.STARTTLS) {
            props.setProperty(p + "starttls.enable", "true");
            props.setProperty(p + "starttls.required", "true");
        }
        if (s != Security.NONE) {
            props.setProperty(p + "ssl.checkserveridentity", "true");
        }
        return props;
    }

    /** @return the longest a connection attempt waits */
    Duration connectTimeout() {
        return Duration.ofMillis(connectTimeoutMs);
    }
}
