package com.teamdesk.tasks.task;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * EJB timers of the task engine: dispatch (R18) every 5 s, stall recovery and reconciliation
 * (R19, R20) every 15 s, CSV purge (R13) every minute. Thin: each calls one service method inside
 * log-and-continue, so one failure never kills the schedule. Non-persistent (persistent timers of
 * Payara Micro are tied to one instance); correctness never depends on one instance running them,
 * because the sweeps coordinate in PostgreSQL ({@code FOR UPDATE SKIP LOCKED}). A sweep that is
 * still running when the next tick fires is skipped.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class TaskTimers {
    private static final Logger LOG = Logger.getLogger(TaskTimers.class.getName());

    @Inject
    TaskDispatcher dispatcher;

    @Inject
    TaskRecovery recovery;

    @Inject
    @ConfigProperty(name = "teamdesk.timers.enabled", defaultValue = "true")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "teamdesk.dispatch.batch-size", defaultValue = "200")
    int batchSize;

    private final AtomicBoolean dispatching = new AtomicBoolean();
    private final AtomicBoolean recovering = new AtomicBoolean();
    private final AtomicBoolean purging = new AtomicBoolean();

    @Schedule(second = "*/5", minute = "*", hour = "*", persistent = false, info = "task dispatch (R18)")
    void dispatch() {
        sweep("dispatch", dispatching, () -> {
            int total = 0;
            int n;
            do {
                n = dispatcher.dispatchDue(batchSize);
                total += n;
            } while (n == batchSize);
            return total;
        });
    }

    @Schedule(second = "*/15", minute = "*", hour = "*", persistent = false, info = "stall recovery (R19, R20)")
    void recover() {
        sweep("recovery", recovering, () -> recovery.recoverStalled(batchSize).size() + recovery.reconcile(batchSize));
    }

    @Schedule(second = "30", minute = "*", hour = "*", persistent = false, info = "expired CSV purge (R13)")
    void purge() {
        sweep("purge", purging, recovery::purgeExpiredResults);
    }

    private void sweep(String name, AtomicBoolean running, IntSupplier body) {
        if (!enabled || !running.compareAndSet(false, true)) {
            return;
        }
        try {
            int n = body.getAsInt();
            if (n > 0) {
                LOG.fine(() -> "task.sweep " + name + " handled " + n);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.sweep " + name + " failed; rows left as they were", e);
        } finally {
            running.set(false);
        }
    }
}
