package com.teamdesk.tasks.task.spi;

import com.teamdesk.tasks.queue.Job;
import com.teamdesk.tasks.queue.LockLostException;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * R10 progress reports when the queue refuses them (issue 10: once an export's queue lock was lost, every
 * later batch logged a WARNING, ~3 800 lines in 40 s): the ledger gets every write, the log one line.
 */
class ExecutionProgressTest {

    private final List<Integer> ledgerWrites = new ArrayList<>();
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger(Execution.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (logger.isLoggable(r.getLevel())) {
                logged.add(r);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLog() {
        logger.addHandler(capture);
    }

    @AfterEach
    void stopCapture() {
        logger.removeHandler(capture);
    }

    @Test
    void aLostQueueLockIsLoggedOnceAndNoLongerReported() {
        QueueJob job = new QueueJob(percent -> {
            if (percent >= 30) {
                throw new LockLostException("lock of job j-0 is no longer held by this execution");
            }
        });
        Execution ex = execution(job);
        for (int p = 10; p <= 90; p += 10) {
            ex.progress(p);
        }
        assertEquals(List.of(10, 20, 30, 40, 50, 60, 70, 80, 90), ledgerWrites, "the ledger gets every write");
        assertEquals(List.of(10, 20, 30), job.reports, "no queue report after the lock was lost");
        assertEquals(1, warnings(), "one warning for the execution");
    }

    @Test
    void otherQueueErrorsAreLoggedOncePerStreak() {
        QueueJob job = new QueueJob(percent -> {
            if (percent != 50) {
                throw new IllegalStateException("Redis unreachable");
            }
        });
        Execution ex = execution(job);
        for (int p = 10; p <= 90; p += 10) {
            ex.progress(p);
        }
        assertEquals(9, job.reports.size(), "a transient error does not stop the reports");
        assertEquals(2, warnings(), "one warning before and one after the report that succeeded");
    }

    /**
     * R23: an export checks its lease (a lease-checked progress write) at least every
     * {@code lease-check-ms} of work, whatever its batch size: per-row calls write only when due.
     */
    @Test
    void theLeaseIsCheckedOnceTheIntervalOfWorkHasPassed() {
        AtomicLong nanos = new AtomicLong();
        JdbcTaskLedger ledger = new JdbcTaskLedger() {
            @Override
            public void writeProgress(Lease lease, int progress, Instant now) {
                ledgerWrites.add(progress);
            }
        };
        Execution ex = new Execution(null, new Lease(UUID.randomUUID(), 0, UUID.randomUUID(), 1), new QueueJob(p -> { }),
                ledger, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), (point, l) -> { }, nanos::get, 1000);
        for (int row = 0; row < 1000; row++) {
            ex.checkLeaseIfDue(0);
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(10)); // 10 ms of work per row
        }
        assertEquals(9, ledgerWrites.size(), "one write per second of work (at 1 s, 2 s, ... 9 s): " + ledgerWrites);
        ex.progress(40);
        ex.checkLeaseIfDue(10);
        assertEquals(10, ledgerWrites.size(), "a progress write restarts the interval");
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
        ex.checkLeaseIfDue(10);
        assertEquals(40, ledgerWrites.get(ledgerWrites.size() - 1), "progress never goes back");
    }

    private long warnings() {
        return logged.stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue()).count();
    }

    private Execution execution(Job job) {
        JdbcTaskLedger ledger = new JdbcTaskLedger() {
            @Override
            public void writeProgress(Lease lease, int progress, Instant now) {
                ledgerWrites.add(progress);
            }
        };
        Lease lease = new Lease(UUID.randomUUID(), 0, UUID.randomUUID(), 1);
        return new Execution(null, lease, job, ledger, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), (point, l) -> { });
    }

    /** A queue job whose progress reports run {@code onReport} after recording the percent. */
    private static final class QueueJob implements Job {
        final List<Integer> reports = new ArrayList<>();
        private final IntConsumer onReport;

        QueueJob(IntConsumer onReport) {
            this.onReport = onReport;
        }

        @Override
        public String id() {
            return "j-0";
        }

        @Override
        public String data() {
            return "";
        }

        @Override
        public int attemptsMade() {
            return 0;
        }

        @Override
        public int attemptsStarted() {
            return 1;
        }

        @Override
        public void updateProgress(int percent) {
            reports.add(percent);
            onReport.accept(percent);
        }
    }
}
