package com.teamdesk.tasks.task.sweep;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.platform.DatabaseClock;
import com.teamdesk.tasks.platform.InstanceId;
import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.task.sweep.SweepStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The instances' timer reports (issue 29: publishing is not sweeping): each instance's sweep status as one
 * JSON value in the Redis hash {@code <prefix>:timers}, read by the operator API and by the connection
 * budget (an instance is live while its report is fresh, R30).
 */
@ApplicationScoped
public class TimerReports {
    private static final Logger LOG = Logger.getLogger(TimerReports.class.getName());

    @Inject
    RedisResources redis;

    @Inject
    Clock clock;

    @Inject
    DatabaseClock databaseClock;

    /**
     * Publishes this instance's sweep status to Redis ({@code <prefix>:timers}, field = instance id), so the
     * operator API shows every instance's timers. Best effort.
     *
     * @param status every sweep's status on this instance
     */
    public void publish(List<SweepStatus> status) {
        try {
            redis.redis().hset(statusKey(redis.prefix()), InstanceId.get(), statusJson(status, clock.instant(),
                    databaseClock.offset().toMillis()));
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "task.timers status not published", e);
        }
    }

    /**
     * An instance that stops takes its status out of {@code <prefix>:timers}, as the worker deletes its
     * heartbeat: the operator API and the connection budget (R30) count only instances that run. A crashed
     * instance's entry ages out (reports older than three dispatch ticks are not counted). Best effort.
     */
    public void withdraw() {
        try {
            redis.redis().hdel(statusKey(redis.prefix()), InstanceId.get());
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "task.timers status not withdrawn", e);
        }
    }

    /** @return the Redis hash of every instance's sweep status */
    public static String statusKey(String prefix) {
        return prefix + ":timers";
    }

    private static String statusJson(List<SweepStatus> list, Instant now, long clockOffsetMs) {
        JsonArrayBuilder a = Jsons.PROVIDER.createArrayBuilder();
        for (SweepStatus s : list) {
            JsonObjectBuilder o = Jsons.PROVIDER.createObjectBuilder().add("name", s.name()).add("schedule", s.schedule())
                    .add("runs", s.runs()).add("failures", s.failures()).add("consecutiveFailures", s.consecutiveFailures())
                    .add("skipped", s.skipped()).add("paused", s.paused()).add("lastHandled", s.lastHandled());
            add(o, "lastStart", s.lastStart());
            add(o, "lastEnd", s.lastEnd());
            add(o, "nextTimeout", s.nextTimeout());
            if (s.lastOutcome() == null) {
                o.addNull("lastOutcome");
            } else {
                o.add("lastOutcome", s.lastOutcome());
            }
            a.add(o);
        }
        return Jsons.PROVIDER.createObjectBuilder().add("instance", InstanceId.get()).add("reportedAt", now.toString())
                .add("clockOffsetMs", clockOffsetMs).add("timers", a).build().toString();
    }

    private static void add(JsonObjectBuilder o, String key, Instant t) {
        if (t == null) {
            o.addNull(key);
        } else {
            o.add(key, t.toString());
        }
    }
}
