package com.teamdesk.tasks.it.clock;

import com.teamdesk.tasks.platform.SystemTime;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.interceptor.Interceptor;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * A CDI alternative to this JVM's own clock ({@link SystemTime}) for the clock-skew tests (issue 28): the
 * real clock plus {@code teamdesk.test.jvm-clock-skew-ms} of the deployment, as on a host whose NTP drifted
 * or a VM resumed from a snapshot. The application's clock must not follow it.
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION + 10)
@ApplicationScoped
public class SkewedSystemClock {

    /** @return the skewed JVM clock every bean of the deployment gets as {@link SystemTime} */
    @Produces
    @SystemTime
    @ApplicationScoped
    public Clock clock() {
        long skew = ConfigProvider.getConfig().getValue("teamdesk.test.jvm-clock-skew-ms", Long.class);
        return Clock.offset(Clock.systemUTC(), Duration.ofMillis(skew));
    }
}
