package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.task.ledger.RunTimeouts;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.KindInfo;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler.Accepted;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.CoreRejection;
import com.teamdesk.tasks.task.spi.TaskRejected;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The task kinds of the application: every {@link TaskKindHandler} bean, keyed by the
 * {@link TaskKind} it declares (issue 29: adding a kind is its package and its bean, no list to edit).
 * Checked when the application starts: two handlers of one kind, or none at all, fail the deployment
 * ({@link IllegalStateException}) instead of failing a task.
 */
@ApplicationScoped
public class TaskKinds {

    @Inject
    Instance<TaskKindHandler<?>> beans;

    private volatile Map<TaskKind, TaskKindHandler<?>> byKind;

    /** Builds and checks the index at startup, so that a missing handler stops the deployment. */
    void check(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        handlers();
    }

    /**
     * Indexes handlers by kind.
     *
     * @return one handler per kind, in the order of the kinds' names
     * @throws IllegalStateException when two handlers declare one kind, or there is none at all
     */
    public static Map<TaskKind, TaskKindHandler<?>> index(Iterable<? extends TaskKindHandler<?>> handlers) {
        Map<TaskKind, TaskKindHandler<?>> map = new TreeMap<>();
        Set<String> problems = new LinkedHashSet<>();
        for (TaskKindHandler<?> h : handlers) {
            TaskKindHandler<?> earlier = map.putIfAbsent(h.kind(), h);
            if (earlier != null) {
                problems.add(h.kind() + " has two handlers: " + earlier.getClass().getName() + " and " + h.getClass().getName());
            }
        }
        if (map.isEmpty()) {
            problems.add("no TaskKindHandler bean is deployed");
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("task kinds: " + String.join("; ", problems)
                    + " (every kind needs exactly one TaskKindHandler bean)");
        }
        return Collections.unmodifiableMap(map);
    }

    /**
     * A kind named in a request: trimmed, case-insensitive, and registered.
     *
     * @param code the problem code of a refusal, e.g. {@code task.invalid}
     * @return the kind
     * @throws com.teamdesk.tasks.common.InvalidInputException ({@code code}) no registered kind has that name
     */
    public TaskKind parse(String value, String field, String code) {
        TaskKind kind = TaskKind.parse(value);
        if (kind == null || !handlers().containsKey(kind)) {
            throw new com.teamdesk.tasks.common.InvalidInputException(code, field + " '" + value + "' is not one of "
                    + handlers().keySet() + ".");
        }
        return kind;
    }

    /**
     * {@link #parse}, and a missing or blank value is refused too ({@code "<field> is required."}).
     *
     * @throws com.teamdesk.tasks.common.InvalidInputException ({@code code}) missing or not registered
     */
    public TaskKind parseRequired(String value, String field, String code) {
        if (value == null || value.isBlank()) {
            throw new com.teamdesk.tasks.common.InvalidInputException(code, field + " is required.");
        }
        return parse(value, field, code);
    }

    /**
     * @return the priority (0-10) of the registered kind {@code value} names, or -1 when it names none; never throws
     *         (R47 opens a request's urgent window before the request is validated)
     */
    public int priorityOf(String value) {
        TaskKind kind = TaskKind.parse(value);
        TaskKindHandler<?> h = kind == null ? null : handlers().get(kind);
        return h == null ? -1 : h.priority();
    }

    /** @return what clients learn of every registered kind, in the order of their names */
    public List<KindInfo> infos() {
        List<KindInfo> out = new ArrayList<>();
        handlers().values().forEach(h -> out.add(h.info()));
        return out;
    }

    /** @return the registered kinds, in the order of their names */
    public Set<TaskKind> kinds() {
        return handlers().keySet();
    }

    /** @return every registered handler, one per kind */
    public java.util.Collection<TaskKindHandler<?>> all() {
        return handlers().values();
    }

    /**
     * @return the handler of {@code kind}; for a name no handler declares (a row of a kind removed since, or
     *         written by an instance that runs a kind this one does not) the {@link #unknown} stand-in, so
     *         that such a row is listed and rejected, never a 500
     */
    public TaskKindHandler<?> handler(TaskKind kind) {
        TaskKindHandler<?> h = handlers().get(kind);
        return h != null ? h : unknown(kind);
    }

    /**
     * The stand-in for a kind no handler declares: no file, no form; a run is rejected at once
     * ({@code UNKNOWN_KIND}, R11); a request for it never gets here ({@link #parse} refuses it).
     */
    static TaskKindHandler<String> unknown(TaskKind kind) {
        return new TaskKindHandler<>() {
            @Override
            public TaskKind kind() {
                return kind;
            }

            @Override
            public List<RequestField> requestFields() {
                return List.of();
            }

            @Override
            public Accepted<String> accept(NewTaskRequest request, Caller caller) {
                throw new com.teamdesk.tasks.common.InvalidInputException("task.invalid", "kind '" + kind + "' is not run here.");
            }

            @Override
            public String store(String params) {
                return params;
            }

            @Override
            public String load(String stored) {
                throw new TaskRejected(CoreRejection.UNKNOWN_KIND, kind + " has no handler on this server");
            }

            @Override
            public void run(Execution execution, String params) {
                throw new TaskRejected(CoreRejection.UNKNOWN_KIND, kind + " has no handler on this server");
            }

            @Override
            public java.time.Duration runTimeout() {
                return RunTimeouts.UNKNOWN_KIND_TIMEOUT;
            }
        };
    }

    /**
     * @return the fields a create body may hold: {@code kind}, every kind's own fields (in the
     *         order of their names), {@code runAt}
     */
    public List<RequestField> requestFields() {
        Map<String, RequestField> fields = new LinkedHashMap<>(); // the same name: the same field
        fields.put(NewTaskRequest.KIND.name(), NewTaskRequest.KIND);
        for (TaskKindHandler<?> h : handlers().values()) {
            h.requestFields().forEach(f -> fields.putIfAbsent(f.name(), f));
        }
        fields.putIfAbsent(NewTaskRequest.RUN_AT.name(), NewTaskRequest.RUN_AT);
        return List.copyOf(fields.values());
    }

    /**
     * Lets the kind's handler parse and validate a request.
     *
     * @return the scope and the parameters in their stored JSON form
     * @see TaskKindHandler#accept
     */
    public Accepted<String> accept(TaskKind kind, NewTaskRequest request, Caller caller) {
        return accept(handler(kind), request, caller);
    }

    /**
     * Issue 52: lets the kind's handler check several requests of one caller at once ({@link TaskKindHandler#acceptAll}).
     *
     * @return one accepted request per request, in order, the parameters in their stored JSON form
     * @throws com.teamdesk.tasks.task.spi.RefusedAt the first refused request
     */
    public List<Accepted<String>> acceptAll(TaskKind kind, List<NewTaskRequest> requests, Caller caller) {
        return acceptAll(handler(kind), requests, caller);
    }

    private static <P> List<Accepted<String>> acceptAll(TaskKindHandler<P> h, List<NewTaskRequest> requests, Caller caller) {
        return h.acceptAll(requests, caller).stream().map(a -> new Accepted<>(a.scope(), h.store(a.params()))).toList();
    }

    /**
     * Runs an execution with its kind's handler, on the parameters stored in its row.
     *
     * @see TaskKindHandler#run
     */
    public void run(Execution execution) throws Exception {
        run(handler(execution.task().kind()), execution);
    }

    private static <P> Accepted<String> accept(TaskKindHandler<P> h, NewTaskRequest request, Caller caller) {
        Accepted<P> a = h.accept(request, caller);
        return new Accepted<>(a.scope(), h.store(a.params()));
    }

    private static <P> void run(TaskKindHandler<P> h, Execution execution) throws Exception {
        h.run(execution, h.load(execution.task().params()));
    }

    private Map<TaskKind, TaskKindHandler<?>> handlers() {
        Map<TaskKind, TaskKindHandler<?>> map = byKind;
        if (map == null) {
            map = index(beans);
            byKind = map;
        }
        return map;
    }
}
