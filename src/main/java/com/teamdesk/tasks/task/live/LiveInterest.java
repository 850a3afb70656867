package com.teamdesk.tasks.task.live;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * This instance's interest in ledger notifications (issue 16, P2; table {@code live_interest}, V7): the
 * ledger's trigger sends {@code pg_notify} only while some instance has live event streams open, because
 * a transaction that notified holds a database-wide lock through its commit, which made every claim and
 * completion commit one after another even when nobody listened.
 *
 * <p>{@link #acquire()} when a stream opens, {@link #release()} when it ends. The first stream registers
 * a row for this instance under an {@code ACCESS EXCLUSIVE} lock on the table, which waits for every
 * transaction that already read the table in the trigger (and so decided not to notify) to end: after
 * {@code acquire()} returns, every change is either committed (the stream reads it from the ledger when
 * it opens) or will be notified. The row is a lease of {@code teamdesk.live.interest-ttl-ms} (default
 * 60 s), renewed every third of it while streams are open and deleted when the last one ends; a crashed
 * instance's row expires. If the registration fails (database unreachable, lock not granted within 2 s),
 * the stream still opens; registration is retried at every renewal, and once it succeeds the
 * {@link #onRegistered} actions (the streams' resync) run so that no change is missed for good.
 */
@Singleton
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class LiveInterest {
    private static final Logger LOG = Logger.getLogger(LiveInterest.class.getName());

    private static final Jdbc.Table INTEREST = Jdbc.Table.of("live_interest");

    @Inject
    Jdbc jdbc;

    @Resource
    ManagedThreadFactory threadFactory;

    @Inject
    @ConfigProperty(name = "teamdesk.live.enabled", defaultValue = "true")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "teamdesk.live.interest-ttl-ms", defaultValue = "60000")
    long ttlMs;

    private final String instanceId = UUID.randomUUID().toString();
    private final Set<Runnable> onRegistered = new CopyOnWriteArraySet<>();
    private int holders;
    private boolean registered;
    private ScheduledExecutorService renewal;

    @PostConstruct
    void start() {
        if (ttlMs < 3_000) {
            throw new IllegalStateException("teamdesk.live.interest-ttl-ms must be at least 3000: " + ttlMs);
        }
        renewal = Executors.newSingleThreadScheduledExecutor(threadFactory);
        renewal.scheduleWithFixedDelay(this::renew, ttlMs / 3, ttlMs / 3, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        renewal.shutdownNow();
        synchronized (this) {
            if (registered) {
                unregister();
            }
        }
    }

    /** Registers an action run after a registration that {@link #acquire()} could not make succeeded later. */
    public void onRegistered(Runnable action) {
        onRegistered.add(action);
    }

    /**
     * A stream opens: makes sure this instance's interest is registered before the stream reads its first
     * state. Never throws; see the class comment for a failed registration.
     */
    public synchronized void acquire() {
        holders++;
        if (enabled && !registered) {
            registered = register();
        }
    }

    /** A stream ended; the last one withdraws this instance's interest. */
    public synchronized void release() {
        if (holders > 0 && --holders == 0 && registered) {
            unregister();
            registered = false;
        }
    }

    private void renew() {
        boolean lateRegistration = false;
        synchronized (this) {
            if (holders == 0 || !enabled) {
                return;
            }
            if (registered) {
                registered = extend();
            }
            if (!registered) {
                registered = register();
                lateRegistration = registered;
            }
        }
        if (lateRegistration) {
            LOG.info("task.live interest registered late; streams resync from the ledger");
            onRegistered.forEach(LiveInterest::runQuietly);
        }
    }

    private boolean register() {
        try {
            return jdbc.withConnection(this::registerOn);
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.WARNING, "task.live could not register this instance's interest; streams may miss "
                    + "changes until a retry succeeds (within " + ttlMs / 3 + " ms): " + e);
            return false;
        }
    }

    /**
     * The registration's own transaction on the borrowed connection (the bean runs outside JTA): the table lock,
     * the upsert and the purge of rows expired an hour ago commit together.
     */
    private boolean registerOn(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement st = c.createStatement();
             PreparedStatement upsert = c.prepareStatement("INSERT INTO live_interest (instance_id, until)"
                     + " VALUES (?, now() + ? * interval '1 millisecond') ON CONFLICT (instance_id)"
                     + " DO UPDATE SET until = EXCLUDED.until")) {
            st.execute("SET LOCAL lock_timeout = '2s'");
            st.execute("LOCK TABLE live_interest IN ACCESS EXCLUSIVE MODE");
            upsert.setString(1, instanceId);
            upsert.setLong(2, ttlMs);
            upsert.executeUpdate();
            st.execute("DELETE FROM live_interest WHERE until < now() - interval '1 hour'");
            c.commit();
            return true;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** @return false when the row is gone (deleted by hand, or expired and purged): register again */
    private boolean extend() {
        try {
            return jdbc.update(INTEREST, "renew interest", "UPDATE live_interest SET until = now() + ? * interval"
                    + " '1 millisecond' WHERE instance_id = ? AND until > now()", ttlMs, instanceId) == 1;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.live could not renew this instance's interest: " + e);
            return true; // still registered until its lease ends; the next renewal tries again
        }
    }

    private void unregister() {
        try {
            jdbc.update(INTEREST, "withdraw interest", "DELETE FROM live_interest WHERE instance_id = ?", instanceId);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "task.live could not withdraw this instance's interest (it expires): " + e);
        }
    }

    private static void runQuietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.live resync failed: " + e, e);
        }
    }
}
