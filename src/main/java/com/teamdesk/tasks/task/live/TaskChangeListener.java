package com.teamdesk.tasks.task.live;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.ledger.TaskReads.Versioned;
import com.teamdesk.tasks.task.ledger.TaskReads;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The one listening connection of this server instance (issue 14): a plain pgjdbc connection outside
 * the pool (a pooled one would be handed back, and enlisted connections never see notifications while a
 * transaction is open) that {@code LISTEN}s on {@code teamdesk_task:<schema>}, where the ledger's trigger
 * announces every committed change of a task (V4). Each notification is turned into the row it carries
 * and handed to the registered subscribers, in the order PostgreSQL delivered them (commit order).
 *
 * <p>When the connection breaks it is reopened with a backoff (0.5 s doubling to 10 s); notifications
 * sent meanwhile are lost, so after every (re)connect the resync subscribers are told to read what
 * they may have missed from the ledger.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class TaskChangeListener {
    private static final Logger LOG = Logger.getLogger(TaskChangeListener.class.getName());
    /** Channel prefix; the trigger appends the table's schema. */
    public static final String CHANNEL = "teamdesk_task:";
    private static final int POLL_MS = 500;
    private static final long MAX_BACKOFF_MS = 10_000;

    @Resource
    ManagedThreadFactory threadFactory;

    @Inject
    TaskReads reads;

    @Inject
    @ConfigProperty(name = "teamdesk.db.url")
    String url;

    @Inject
    @ConfigProperty(name = "teamdesk.db.user")
    String user;

    @Inject
    @ConfigProperty(name = "teamdesk.db.password")
    String password;

    @Inject
    @ConfigProperty(name = "teamdesk.live.enabled", defaultValue = "true")
    boolean enabled;

    private final Set<Consumer<Versioned>> subscribers = new CopyOnWriteArraySet<>();
    private final Set<Runnable> resyncs = new CopyOnWriteArraySet<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile Connection connection;
    private volatile boolean listening;
    private Thread thread;

    @PostConstruct
    void start() {
        if (!enabled) {
            LOG.info("task.live disabled by teamdesk.live.enabled=false");
            return;
        }
        thread = threadFactory.newThread(this::loop);
        thread.setName("teamdesk-task-listener");
        thread.start();
    }

    @PreDestroy
    void shutdown() {
        stop.countDown();
        closeQuietly();
        if (thread != null) {
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Registers a consumer of every committed change (called on the listener's thread; must not block). */
    public void subscribe(Consumer<Versioned> subscriber) {
        subscribers.add(subscriber);
    }

    /** Registers an action run after every (re)connect: notifications of the gap were lost. */
    public void onResync(Runnable action) {
        resyncs.add(action);
    }

    /** @return true while the listening connection is open and {@code LISTEN} was issued */
    public boolean listening() {
        return listening;
    }

    private void loop() {
        long backoff = POLL_MS;
        boolean first = true;
        while (stop.getCount() > 0) {
            try {
                connect();
                if (!first) {
                    LOG.info("task.live listening again; streams resync from the ledger");
                }
                backoff = POLL_MS;
                if (!first) {
                    resyncs.forEach(TaskChangeListener::runQuietly);
                }
                first = false;
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (stop.getCount() > 0) {
                    PGNotification[] batch = pg.getNotifications(POLL_MS);
                    if (batch == null) {
                        continue;
                    }
                    for (PGNotification n : batch) {
                        deliver(n.getParameter());
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                closeQuietly();
                if (stop.getCount() == 0) {
                    return;
                }
                long wait = backoff;
                LOG.log(Level.WARNING, "task.live listening connection lost; reconnecting in " + wait + " ms: " + e);
                try {
                    if (stop.await(wait, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
                first = false;
            }
        }
        listening = false;
        closeQuietly();
    }

    private void connect() throws SQLException {
        closeQuietly();
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        props.setProperty("ApplicationName", "teamdesk-task-listener");
        props.setProperty("tcpKeepAlive", "true");
        Connection c = new org.postgresql.Driver().connect(url, props);
        if (c == null) {
            throw new SQLException("not a PostgreSQL URL: " + url);
        }
        connection = c;
        try (Statement st = c.createStatement()) {
            String schema;
            try (ResultSet rs = st.executeQuery("SELECT current_schema()")) {
                rs.next();
                schema = rs.getString(1);
            }
            st.execute("LISTEN \"" + (CHANNEL + schema).replace("\"", "\"\"") + "\"");
        }
        listening = true;
    }

    private void deliver(String payload) {
        Optional<Versioned> change;
        try {
            change = parse(payload);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.live unreadable notification skipped: " + e);
            return;
        }
        change.ifPresent(v -> subscribers.forEach(s -> {
            try {
                s.accept(v);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "task.live subscriber failed: " + e, e);
            }
        }));
    }

    /** @return the change a payload announces; a partial payload (long filters) is completed from the ledger */
    private Optional<Versioned> parse(String payload) {
        JsonObject o;
        try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(payload))) {
            o = r.readObject();
        }
        UUID id = UUID.fromString(o.getString("id"));
        if (o.getBoolean("partial", false)) {
            return reads.findVersioned(id);
        }
        BackgroundTask t = new BackgroundTask(id, TaskKind.of(o.getString("kind")),
                UUID.fromString(o.getString("teamId")), UUID.fromString(o.getString("ownerId")),
                TaskScope.valueOf(o.getString("scope")), o.get("filters").toString(),
                TaskStatus.valueOf(o.getString("status")), o.getInt("run"), o.getInt("attempts"), o.getInt("progress"),
                null, null, instant(o, "runAt"), string(o, "lastError"), null, null, string(o, "resultSummary"),
                instant(o, "expiresAt"), instant(o, "createdAt"), instant(o, "updatedAt"), instant(o, "cancelledAt"),
                uuid(o, "cancelledBy"), uuid(o, "scheduleId"), instant(o, "slotAt"), null, null, uuid(o, "batchId"),
                uuid(o, "completesBatch"), o.getInt("waitsFor", 0), o.getBoolean("runAnyway", false), false);
        return Optional.of(new Versioned(o.getJsonNumber("seq").longValue(), t));
    }

    private static UUID uuid(JsonObject o, String key) {
        String v = string(o, key);
        return v == null ? null : UUID.fromString(v);
    }

    private static String string(JsonObject o, String key) {
        JsonValue v = o.get(key);
        return v == null || v.getValueType() == JsonValue.ValueType.NULL ? null : o.getString(key);
    }

    /** Epoch seconds with microseconds, as {@code extract(epoch FROM …)} gives them. */
    private static Instant instant(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (!(v instanceof JsonNumber n)) {
            return null;
        }
        BigDecimal micros = n.bigDecimalValue().movePointRight(6).setScale(0, java.math.RoundingMode.HALF_UP);
        long m = micros.longValueExact();
        return Instant.ofEpochSecond(Math.floorDiv(m, 1_000_000L), Math.floorMod(m, 1_000_000L) * 1_000L);
    }

    private void closeQuietly() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                LOG.log(Level.FINE, "task.live close", e);
            }
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
