package com.teamdesk.tasks.task.spi;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One task kind as a plug-in: both halves of it, the creation (parse and validate a member's
 * request into typed parameters) and the execution (run one claimed execution). Each kind is one
 * CDI bean in its own package ({@code task/export}, {@code task/reminder}); {@code TaskKinds}
 * finds them and refuses to start unless every {@link TaskKind} has exactly one. Nothing else in
 * the code switches on the kind.
 *
 * <p>The parameters are stored as JSON text in the ledger's {@code params} (column {@code filters},
 * the name the API keeps) and given back to {@link #run} parsed by {@link #load}.
 *
 * @param <P> the kind's typed parameters
 */
public interface TaskKindHandler<P> {

    /**
     * What a request was accepted as.
     *
     * @param scope  the task's scope (R15)
     * @param params the kind's validated parameters
     * @param <P>    their type
     */
    record Accepted<P>(TaskScope scope, P params) {
    }

    /** @return the kind this handler defines */
    TaskKind kind();

    /**
     * @return the fields of the create body this kind reads, besides {@code kind} and
     *         {@code runAt}; a body with a field no kind declares is refused (400)
     */
    List<RequestField> requestFields();

    /**
     * Parses and validates a member's request for this kind, with the caller's rights checked now
     * (they are checked again when the task runs).
     *
     * @return the task's scope and parameters
     * @throws InvalidInputException a bad field (400), with this kind's code
     * @throws ForbiddenException    the caller may not ask for this (403)
     * @throws NotFoundException     something the request names is not visible to the caller (404)
     */
    Accepted<P> accept(NewTaskRequest request, Caller caller);

    /**
     * Issue 52 (R51): {@link #accept} of several requests of one caller at once (a batch's items of this kind), all
     * or none. By default one by one; a kind whose checks read the database reads once for all (the reminder's
     * tickets).
     *
     * @return one accepted request per request, in order
     * @throws RefusedAt the first refused request, with the refusal {@link #accept} would throw
     */
    default List<Accepted<P>> acceptAll(List<NewTaskRequest> requests, Caller caller) {
        List<Accepted<P>> out = new java.util.ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            try {
                out.add(accept(requests.get(i), caller));
            } catch (com.teamdesk.tasks.common.AppException e) {
                throw new RefusedAt(i, e);
            }
        }
        return out;
    }

    /** @return the stored JSON form of {@code params} */
    String store(P params);

    /**
     * Parses the stored parameters of a run.
     *
     * @throws TaskRejected with this kind's reason (its own words) when they no longer validate
     */
    P load(String stored);

    /**
     * Runs one execution that holds the lease, to completion, ending with a lease-checked final
     * write (R13, R14). Writes only through lease-checked ledger statements (R8).
     *
     * @throws TaskRejected a permanent rejection (R11)
     * @throws LeaseLost    a lease-checked write matched 0 rows (R9)
     * @throws Exception    anything else is transient (R11)
     */
    void run(Execution execution, P params) throws Exception;

    /** @return the longest one execution of this kind may run (R26), from its configuration */
    Duration runTimeout();

    /**
     * @return what clients learn of this kind ({@code GET /api/v1/kinds}); by default its name as label, no
     *         generic form, and {@code download} when it {@link #offersFile}
     */
    default KindInfo info() {
        String n = kind().name();
        return new KindInfo(n, n.charAt(0) + n.substring(1).toLowerCase(java.util.Locale.ROOT).replace('_', ' '),
                List.of(), offersFile() ? List.of(KindInfo.DOWNLOAD) : List.of());
    }

    /**
     * Issue 30: this kind's priority among its team's waiting tasks, 0 (default) to 10, higher first; a task is
     * overtaken by at most 1000 x (difference in priority) later tasks of its team (aging, so never starved).
     * Teams take turns whatever the priorities (round robin across teams).
     *
     * @return 0-10
     */
    default int priority() {
        return 0;
    }

    /**
     * Issue 31: a schedule of this kind is about to be resumed (or enabled again) for its owner; throws when its
     * stored parameters could not run now, so the schedule stays paused instead of failing at every slot.
     * Default: nothing to check.
     *
     * @param stored the parameters as {@link #store} wrote them
     * @param owner  the schedule's owner, in the schedule's team
     * @throws ConflictException the kind's own code, e.g. {@code reminder.ticket_closed}
     */
    default void checkResumable(String stored, Caller owner) {
    }

    /**
     * Issue 52 (R52): true for a kind that runs only as a batch's completion (it reads its batch's outcome): a task of
     * it cannot be created alone or as a batch's child ({@code task.completion_only}, 422).
     */
    default boolean completionOnly() {
        return false;
    }

    /**
     * Issue 53 (R59): true for a kind the server starts itself and no client may ask for (its {@link #accept} refuses
     * every request); the API's create-body schema does not offer it.
     */
    default boolean systemOnly() {
        return false;
    }

    /** @return true when a COMPLETED task of this kind offers a file at {@code /tasks/{id}/result} */
    default boolean offersFile() {
        return false;
    }

    /**
     * The file of a task of this kind ({@code GET /tasks/{id}/result}), the caller's right to see the task
     * already checked. The kind owns its storage: name, size, digest and bytes come from it.
     *
     * @throws ConflictException ({@code task.not_completed}) no file: the kind offers none, or the task is
     *                           not COMPLETED
     * @throws com.teamdesk.tasks.common.GoneException the kind's file is gone (e.g. expired)
     */
    default TaskResult result(BackgroundTask task) {
        throw new ConflictException("task.not_completed", "This task has no file (status " + task.status() + ").");
    }

    /**
     * Clears what this kind stores past its retention (the export: CSVs older than 24 h, and chunks no
     * result and no running execution owns), at most about {@code limit} of each, in the caller's
     * transaction; called by the purge sweep (R13).
     *
     * @return how many were cleared
     */
    default int purgeExpired(Instant now, int limit) {
        return 0;
    }

}
