package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.queue.Worker;
import com.teamdesk.tasks.queue.WorkerOptions;
import com.teamdesk.tasks.task.fairshare.BackgroundCpu;
import com.teamdesk.tasks.task.fairshare.UrgentPriority;
import com.teamdesk.tasks.task.fairshare.BackgroundStatements;
import com.teamdesk.tasks.task.ledger.LedgerBreaker;
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
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The queue worker inside the application server (R22). Started after the schema migration on
 * container-managed threads (so executions can use JTA, CDI and JNDI); on shutdown it stops taking
 * jobs, lets in-flight jobs finish within the grace period while still renewing their locks, then
 * exits; a job cut off by the deadline is left to stall recovery. The queue worker publishes a
 * heartbeat key that the health check reports.
 *
 * <p>Why one class of about 300 lines: starting, draining on SIGTERM and stopping the worker share its one lifecycle
 * lock and executor; the queue's worker itself is {@code queue/Worker}, the processing {@link TaskProcessor}.
 */
@Singleton
@Startup
@DependsOn({"SchemaMigration", "ClockSync"})
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class TaskWorker {
    private static final Logger LOG = Logger.getLogger(TaskWorker.class.getName());

    @Resource
    ManagedThreadFactory threadFactory;

    @Inject
    RedisResources redis;

    @Inject
    TaskProcessor processor;

    @Inject
    TaskQueueListener listener;

    @Inject
    Transactions transactions;

    @Inject
    LedgerBreaker breaker;

    @Inject
    BackgroundCpu background;

    @Inject
    BackgroundStatements statements;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.enabled", defaultValue = "true")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.concurrency", defaultValue = "4")
    int concurrency;

    /**
     * Issue 30, R42: reserved slots of the {@code concurrency} that take only tasks of priority {@code >=}
     * {@link #reservedMinPriority} (reminders, digests); unset = 1 when concurrency >= 2, else 0.
     */
    @Inject
    @ConfigProperty(name = "teamdesk.worker.reserved-slots")
    Optional<Integer> reservedSlots;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.reserved-min-priority", defaultValue = "5")
    int reservedMinPriority;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.lock-duration-ms", defaultValue = "30000")
    long lockDurationMs;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.lock-renew-ms", defaultValue = "15000")
    long lockRenewMs;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.stalled-interval-ms", defaultValue = "30000")
    long stalledIntervalMs;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.max-stalled-count", defaultValue = "1")
    int maxStalledCount;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.heartbeat-ttl-ms", defaultValue = "15000")
    long heartbeatTtlMs;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.shutdown-grace-ms", defaultValue = "20000")
    long shutdownGraceMs;

    private ExecutorService executor;
    private volatile Worker worker;
    private volatile Object[] sigterm;
    private boolean stopped;

    @PostConstruct
    void start() {
        executor = Executors.newCachedThreadPool(threadFactory);
        if (!enabled) {
            LOG.info("task.worker disabled by teamdesk.worker.enabled=false");
            return;
        }
        // Not here: an EJB call from a worker thread waits until this startup bean is initialised.
        executor.execute(this::probeAndStart);
    }

    /**
     * Runs one empty transaction on a worker thread, as an execution begins its transactions, and
     * checks that the datasource enlists there (EnlistmentGuard); then starts the queue worker. When
     * connections are not enlisted, the worker is not started and the readiness check reports why: a
     * reminder there would commit its writes one by one.
     */
    private void probeAndStart() {
        try {
            transactions.inNewTransaction(TxSite.WORKER, () -> null);
        } catch (RuntimeException e) {
            LOG.severe(() -> "task.worker NOT started: " + e);
            return;
        }
        synchronized (this) {
            if (stopped) {
                return;
            }
            int reserved = reservedSlots();
            Worker w = new Worker(redis.redis(), redis.prefix(), redis.queueName(), options(reserved), processor,
                    executor);
            w.addListener(listener);
            w.setFetchGate(breaker); // issue 28: no fetching while the ledger is unreachable
            w.start();
            worker = w;
            installSigtermDrain();
            String cpu = background.describe();
            LOG.info(() -> "task.worker " + w.workerId() + " started, concurrency " + concurrency + ", reserved slots "
                    + reserved + " for priority >= " + reservedMinPriority() + "; " + cpu + "; background statements "
                    + (statements.bound() > 0 ? "at most " + statements.bound() + " at once (R48)" : "not bounded (R48)"));
        }
    }

    /**
     * Runs {@code body} on one of the worker's own threads, the threads executions run on (made by
     * the container's {@code ManagedThreadFactory} inside this bean, with the context production
     * executions have). For tests and tools that hand an execution to the processor directly.
     *
     * @throws java.util.concurrent.RejectedExecutionException after shutdown
     */
    public <T> Future<T> submit(Callable<T> body) {
        return executor.submit(body);
    }

    /** @return the worker's executor, for additional queue workers on the same threads (tests) */
    public ExecutorService executorForWorkers() {
        return executor;
    }

    /**
     * R22 on SIGTERM: drain BEFORE the container shuts down. Payara Micro's shutdown hook tears down
     * the application's connection pool while jobs still run (their writes then fail and the JVM
     * exits at once), so {@code @PreDestroy} comes too late to protect in-flight jobs. This handler
     * runs first: it stops fetching, lets in-flight jobs finish within the grace period, then hands
     * the signal to the previous handler, which starts the normal shutdown. Reflection keeps the
     * build free of internal-API warnings; where signals are not available the drain falls back to
     * {@code @PreDestroy}.
     */
    private void installSigtermDrain() {
        try {
            Class<?> signalType = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object term = signalType.getConstructor(String.class).newInstance("TERM");
            Method handle = handlerType.getMethod("handle", signalType);
            Object[] previous = new Object[1];
            Object handler = Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType},
                    (proxy, method, args) -> {
                        if (method.equals(handle)) {
                            stop();
                            if (previous[0] != null) {
                                handle.invoke(previous[0], args[0]);
                            }
                            return null;
                        }
                        return switch (method.getName()) {
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> "TaskWorker SIGTERM drain";
                        };
                    });
            previous[0] = signalType.getMethod("handle", signalType, handlerType).invoke(null, term, handler);
            sigterm = new Object[] {signalType, handlerType, term, previous[0]};
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warning(() -> "task.worker: no SIGTERM drain (" + e + "); draining at undeploy only");
        }
    }

    private void restoreSigtermHandler() {
        Object[] s = sigterm;
        sigterm = null;
        if (s == null || s[3] == null) {
            return;
        }
        try {
            Class<?> signalType = (Class<?>) s[0];
            signalType.getMethod("handle", signalType, (Class<?>) s[1]).invoke(null, s[2], s[3]);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warning(() -> "task.worker: could not restore the SIGTERM handler: " + e);
        }
    }

    /** R22 drain: stop fetching, finish in-flight jobs within the grace period, then exit. */
    @PreDestroy
    synchronized void stop() {
        stopped = true;
        restoreSigtermHandler();
        Worker w = worker;
        if (w == null) {
            if (executor != null) {
                executor.shutdownNow();
            }
            return;
        }
        LOG.info(() -> "task.worker " + w.workerId() + " draining, grace " + shutdownGraceMs + " ms");
        boolean drained = w.close(Duration.ofMillis(shutdownGraceMs));
        LOG.info(() -> "task.worker " + w.workerId() + (drained ? " drained" : " cut off at the deadline; in-flight"
                + " jobs are left to stall recovery"));
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        worker = null;
    }

    /** @return the running worker, or empty when disabled or stopped */
    public Optional<Worker> worker() {
        return Optional.ofNullable(worker);
    }

    /** @return whether this server's worker is enabled by configuration */
    public boolean enabled() {
        return enabled;
    }

    /**
     * @return {@code teamdesk.worker.reserved-slots}, or its default: 1 when concurrency >= 2, else 0; a value that
     *         leaves no general slot (or is negative) is logged and lowered to {@code concurrency - 1} (or 0), so
     *         that a misconfigured instance still runs every kind
     */
    int reservedSlots() {
        int wanted = reservedSlots.orElse(concurrency >= 2 ? 1 : 0);
        int allowed = Math.max(0, Math.min(wanted, concurrency - 1));
        if (allowed != wanted) {
            LOG.warning(() -> "teamdesk.worker.reserved-slots " + wanted + " must be 0 to concurrency - 1 ("
                    + (concurrency - 1) + "); using " + allowed);
        }
        return allowed;
    }

    /**
     * @return {@code teamdesk.worker.reserved-min-priority}, lowered or raised into 1-10 (logged) when outside it,
     *         so that a misconfigured instance still starts its worker
     */
    int reservedMinPriority() {
        int allowed = UrgentPriority.clampMinPriority(reservedMinPriority);
        if (allowed != reservedMinPriority) {
            LOG.warning(() -> "teamdesk.worker.reserved-min-priority " + reservedMinPriority + " must be "
                    + (com.teamdesk.tasks.queue.JobOptions.MIN_PRIORITY + 1) + " to "
                    + com.teamdesk.tasks.queue.JobOptions.MAX_PRIORITY + "; using " + allowed);
        }
        return allowed;
    }

    private WorkerOptions options(int reserved) {
        return WorkerOptions.defaults()
                .withConcurrency(concurrency)
                .withReservedSlots(reserved, reservedMinPriority())
                .withLockDurationMs(lockDurationMs)
                .withLockRenewMs(lockRenewMs)
                .withStalledIntervalMs(stalledIntervalMs)
                .withMaxStalledCount(maxStalledCount)
                .withHeartbeatTtlMs(heartbeatTtlMs);
    }
}
