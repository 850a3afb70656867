package com.teamdesk.tasks.it.clock;

import java.time.Duration;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/** {@link ClockSkewChecks} on a server whose JVM clock runs 5 minutes ahead (issue 28). */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
class ClockAheadIT extends ClockSkewChecks {
    private static final Duration SKEW = Duration.ofMinutes(5);

    @Deployment
    static WebArchive deployment() {
        return deployment(SKEW);
    }

    @Override
    Duration skew() {
        return SKEW;
    }
}
