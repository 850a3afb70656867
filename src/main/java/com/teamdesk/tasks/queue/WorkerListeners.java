package com.teamdesk.tasks.queue;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/** The listeners of one worker and the one place that calls them (R21: a listener never breaks the worker). */
final class WorkerListeners {

    private static final Logger LOG = Logger.getLogger(WorkerListeners.class.getName());

    private final String workerId;
    private final List<WorkerListener> listeners = new CopyOnWriteArrayList<>();

    WorkerListeners(String workerId) {
        this.workerId = workerId;
    }

    void add(WorkerListener l) {
        listeners.add(Objects.requireNonNull(l, "listener"));
    }

    /** Tells every listener, in the order added; what one throws is logged and the next is still told. */
    void emit(Consumer<WorkerListener> event) {
        for (WorkerListener l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError vme) {
                    throw vme;
                }
                LOG.log(Level.WARNING, e, () -> "worker " + workerId + ": listener " + l + " threw");
            }
        }
    }
}
