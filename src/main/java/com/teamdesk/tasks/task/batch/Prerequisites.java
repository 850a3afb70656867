package com.teamdesk.tasks.task.batch;

import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger.Prerequisite;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.Role;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R53: what a new task waits for. A create body may name {@code after}: the ids of tasks of the same team (and, in a
 * batch, item indexes of other children of the same batch), and {@code afterFailure}: {@code CANCEL} (the default:
 * when a prerequisite fails for good or is cancelled, the task is cancelled with a cause that names it) or
 * {@code RUN} (it runs anyway). This class reads those fields strictly and checks the named tasks inside the creating
 * transaction; the waiting itself is the ledger's ({@code waits_for}, V18's trigger).
 */
@ApplicationScoped
public class Prerequisites {
    /** The create body's field that names the prerequisites. */
    public static final String AFTER = "after";
    /** The create body's field that says what a prerequisite's failure does. */
    public static final String AFTER_FAILURE = "afterFailure";
    /** An item index as JSON text: digits only, no sign, fraction or exponent (R49). */
    private static final java.util.regex.Pattern INDEX = java.util.regex.Pattern.compile("[0-9]{1,12}");

    @Inject
    JdbcTaskLedger ledger;

    /** Most prerequisites one task may name. */
    @Inject
    @ConfigProperty(name = "teamdesk.task.max-prerequisites", defaultValue = "100")
    int maxPrerequisites;

    /** Longest chain of prerequisites, the new task counted. */
    @Inject
    @ConfigProperty(name = "teamdesk.task.max-dependency-depth", defaultValue = "10")
    int maxDepth;

    /**
     * What one create body says it waits for.
     *
     * @param tasks     existing tasks, in the order named, without repeats
     * @param items     other items of the same batch (indexes), without repeats
     * @param runAnyway {@code afterFailure: RUN}
     */
    public record After(List<UUID> tasks, List<Integer> items, boolean runAnyway) {
        /** Waits for nothing. */
        public static final After NONE = new After(List.of(), List.of(), false);

        /** @return true when it names nothing */
        public boolean isEmpty() {
            return tasks.isEmpty() && items.isEmpty();
        }
    }

    /**
     * Reads {@code after} and {@code afterFailure} of a create body.
     *
     * @param batchSize the batch's number of items, or 0 for a task created alone (then item indexes are refused)
     * @param self      this item's index in its batch (it may not name itself), or -1
     * @throws InvalidInputException ({@code task.after_invalid}) not an array; an entry neither a task id nor (in a
     *                               batch) an item index; itself; more than {@code teamdesk.task.max-prerequisites};
     *                               {@code afterFailure} not CANCEL or RUN
     */
    public After parse(JsonObject body, int batchSize, int self) {
        JsonValue v = body.get(AFTER);
        String failure = com.teamdesk.tasks.common.Jsons.string(body, AFTER_FAILURE);
        boolean runAnyway = false;
        if (failure != null) {
            runAnyway = switch (failure.trim().toUpperCase(java.util.Locale.ROOT)) {
                case "CANCEL" -> false;
                case "RUN" -> true;
                default -> throw invalid("afterFailure '" + ClientText.echo(failure) + "' is not one of [CANCEL, RUN].");
            };
        }
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return runAnyway ? new After(List.of(), List.of(), true) : After.NONE;
        }
        if (!(v instanceof JsonArray array)) {
            throw invalid("after must be an array of task ids" + (batchSize > 0 ? " or item indexes." : "."));
        }
        if (array.size() > maxPrerequisites) {
            throw invalid("after names " + array.size() + " tasks; at most " + maxPrerequisites + " are allowed.");
        }
        Set<UUID> tasks = new LinkedHashSet<>();
        Set<Integer> items = new LinkedHashSet<>();
        for (JsonValue e : array) {
            if (e instanceof JsonString s) {
                tasks.add(taskId(s.getString()));
            } else if (e instanceof JsonNumber n && batchSize > 0 && INDEX.matcher(n.toString()).matches()) {
                // R49: ASCII digits only, read as text first (never 1e999999999 turned into a number)
                int i = n.toString().length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(n.toString());
                if (i >= batchSize) {
                    throw invalid("after names item " + ClientText.echo(n.toString()) + "; the batch has items 0 to "
                            + (batchSize - 1) + ".");
                }
                if (i == self) {
                    throw invalid("an item cannot wait for itself.");
                }
                items.add(i);
            } else {
                throw invalid("after must be an array of task ids" + (batchSize > 0 ? " or item indexes." : "."));
            }
        }
        return new After(List.copyOf(tasks), List.copyOf(items), runAnyway);
    }

    private static UUID taskId(String text) {
        try {
            UUID id = UUID.fromString(text.trim());
            if (id.toString().equalsIgnoreCase(text.trim())) {
                return id;
            }
        } catch (IllegalArgumentException e) {
            // refused below
        }
        throw invalid("after names '" + ClientText.echo(text) + "', which is not a task id.");
    }

    /**
     * Inside the creating transaction: marks the named tasks as prerequisites (which locks them) and checks them.
     *
     * @param ids       every existing task the new tasks name
     * @param role      the caller's role in the team (a customer may name only their own tasks)
     * @param callerId  the caller
     * @return the prerequisites by id, each as it is now
     * @throws NotFoundException ({@code task.prerequisite_not_found}) a named task does not exist, is another team's,
     *                           or is not visible to the caller; the detail names it
     */
    @Transactional(TxType.MANDATORY)
    public Map<UUID, Prerequisite> lock(UUID teamId, UUID callerId, Role role, Collection<UUID> ids) {
        Map<UUID, Prerequisite> found = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return found;
        }
        for (Prerequisite p : ledger.markPrerequisites(ids)) {
            found.put(p.id(), p);
        }
        for (UUID id : ids) {
            Prerequisite p = found.get(id);
            if (p == null || !p.teamId().equals(teamId) || (!role.isStaff() && !p.ownerId().equals(callerId))) {
                throw new NotFoundException("task.prerequisite_not_found", "after names task " + id
                        + ", which is not among your team's tasks.");
            }
        }
        return found;
    }

    /**
     * The count a new task waits for, from its existing prerequisites as {@link #lock} read them.
     *
     * @return how many of them have not ended
     * @throws ConflictException ({@code task.prerequisite_ended}) one ended without completing (FAILED or CANCELLED)
     *                           and the task does not run anyway: it would be cancelled at once
     */
    public static int waitingFor(After after, Map<UUID, Prerequisite> locked) {
        int waiting = 0;
        for (UUID id : after.tasks()) {
            Prerequisite p = locked.get(id);
            if (!p.ended()) {
                waiting++;
            } else if (p.status() != TaskStatus.COMPLETED && !after.runAnyway()) {
                throw new ConflictException("task.prerequisite_ended", "after names task " + id + ", which is "
                        + p.status() + "; retry it first, or say afterFailure RUN.");
            }
        }
        return waiting;
    }

    /**
     * Checks the depth of the chains behind {@code ids} (existing tasks), the new task counted.
     *
     * @param extra how many levels the new task adds below them (1 alone; more inside a batch's chain)
     * @throws InvalidInputException ({@code task.after_too_deep})
     */
    public void checkDepth(Collection<UUID> ids, int extra) {
        int depth = ledger.dependencyDepth(ids, maxDepth) + extra;
        if (depth > maxDepth) {
            throw new InvalidInputException("task.after_too_deep", "The chain of tasks waiting for each other would"
                    + " be " + depth + " deep; at most " + maxDepth + " is allowed.");
        }
    }

    /**
     * The order of a batch's items by what they wait for among themselves, and each item's depth in that order.
     *
     * @param items each item's {@code after} (item indexes only matter here)
     * @return each item's depth (1 for an item that waits for no other item)
     * @throws InvalidInputException ({@code task.after_cycle}) the items wait for each other in a cycle; the detail
     *                               names one item on it
     */
    public static int[] depths(List<After> items) {
        int n = items.size();
        int[] pending = new int[n];
        List<List<Integer>> dependents = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            dependents.add(new ArrayList<>());
        }
        for (int i = 0; i < n; i++) {
            for (int p : items.get(i).items()) {
                dependents.get(p).add(i);
                pending[i]++;
            }
        }
        int[] depth = new int[n];
        java.util.ArrayDeque<Integer> ready = new java.util.ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            if (pending[i] == 0) {
                ready.add(i);
                depth[i] = 1;
            }
        }
        int seen = 0;
        while (!ready.isEmpty()) {
            int i = ready.poll();
            seen++;
            for (int d : dependents.get(i)) {
                depth[d] = Math.max(depth[d], depth[i] + 1);
                if (--pending[d] == 0) {
                    ready.add(d);
                }
            }
        }
        if (seen < n) {
            for (int i = 0; i < n; i++) {
                if (pending[i] > 0) {
                    throw new InvalidInputException("task.after_cycle", "items[" + i + "] waits, through after, for"
                            + " an item that waits for it in turn: the items' after lists form a cycle.");
                }
            }
        }
        return depth;
    }

    private static InvalidInputException invalid(String detail) {
        return new InvalidInputException("task.after_invalid", detail);
    }
}
