package com.teamdesk.tasks.team.sla;

import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.ClientValues;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.Priority;
import com.teamdesk.tasks.team.TeamAccess;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Issue 53 (R56): what a team promises per ticket priority — a first response and a resolution within so many business
 * minutes, with a warning at a share of each. Read by the team's staff, set whole by its owners; a change re-targets
 * the team's clocks in the same transaction, under the team lock ({@link SlaClocks#policiesChanged}).
 */
@ApplicationScoped
public class SlaPolicies {
    /** The body's fields ({@code PUT .../sla-policies}). */
    public static final Set<String> FIELDS = Set.of("policies");
    /** The longest target: a year of business minutes. */
    public static final int MAX_MINUTES = 525_600;

    private static final Jdbc.Table TABLE = SlaPolicy.TABLE;
    private static final Set<String> POLICY_FIELDS = Set.of("priority", "firstResponseMinutes", "resolutionMinutes",
            "warnPercent");

    @Inject
    Jdbc jdbc;

    @Inject
    TeamAccess access;

    @Inject
    JdbcTeamWrites teamWrites;

    @Inject
    SlaClocks clocks;

    @Inject
    Clock clock;

    /**
     * @return the team's policies by priority (staff and owners)
     * @throws com.teamdesk.tasks.common.NotFoundException ({@code team.not_found}) not a member
     * @throws ForbiddenException ({@code team.staff_only}) a customer
     */
    public List<SlaPolicy> read(UUID callerId, UUID teamId) {
        access.requireStaff(teamId, callerId);
        return List.copyOf(of(teamId).values());
    }

    /** @return the team's policies by priority, for the clocks (no caller: no check) */
    public Map<Priority, SlaPolicy> of(UUID teamId) {
        return clocks.policies(teamId);
    }

    /**
     * Sets the team's policies from {@code {policies: [{priority, firstResponseMinutes, resolutionMinutes,
     * warnPercent?}]}} (warnPercent defaults to 75); a priority not named has no promise from now on.
     *
     * @return the policies as stored
     * @throws InvalidInputException ({@code sla.policy_invalid}) a priority unknown or named twice, a target not 1 to
     *                               525 600 minutes, a warning not 1 to 99 %; nothing stored
     * @throws ForbiddenException    ({@code sla.owner_only}) a caller who is not an owner
     */
    @Transactional
    public List<SlaPolicy> replace(UUID callerId, UUID teamId, JsonObject body) {
        access.requireOwner(teamId, callerId, "sla.owner_only", "its SLA policies");
        Map<Priority, SlaPolicy> policies = parse(body);
        teamWrites.lockTeam(teamId);
        jdbc.update(TABLE, "policy delete", "DELETE FROM sla_policy WHERE team_id = ?", teamId);
        for (SlaPolicy p : policies.values()) {
            jdbc.updateExpecting(1, TABLE, "policy insert", "INSERT INTO sla_policy (team_id, priority,"
                    + " first_response_minutes, resolution_minutes, warn_percent, updated_by) VALUES (?, ?, ?, ?, ?, ?)",
                    teamId, p.priority().name(), p.firstResponseMinutes(), p.resolutionMinutes(), p.warnPercent(),
                    callerId);
        }
        clocks.policiesChanged(teamId, policies, clock.instant());
        return List.copyOf(policies.values());
    }

    static Map<Priority, SlaPolicy> parse(JsonObject body) {
        JsonValue v = body.get("policies");
        if (!(v instanceof JsonArray a)) {
            throw invalid("policies must be an array of {priority, firstResponseMinutes, resolutionMinutes,"
                    + " warnPercent}.");
        }
        Map<Priority, SlaPolicy> out = new EnumMap<>(Priority.class);
        for (int i = 0; i < a.size(); i++) {
            String where = "policies[" + i + "]";
            if (!(a.get(i) instanceof JsonObject o)) {
                throw invalid(where + " must be an object.");
            }
            for (String k : o.keySet()) {
                if (!POLICY_FIELDS.contains(k)) {
                    throw invalid(where + " has the unknown field '" + ClientText.echo(k) + "'.");
                }
            }
            Priority priority = priority(o.get("priority"), where);
            if (out.containsKey(priority)) {
                throw invalid(where + " names " + priority + " again.");
            }
            out.put(priority, new SlaPolicy(priority, minutes(o.get("firstResponseMinutes"), where + ".firstResponseMinutes"),
                    minutes(o.get("resolutionMinutes"), where + ".resolutionMinutes"),
                    o.containsKey("warnPercent") ? number(o.get("warnPercent"), where + ".warnPercent", 1, 99) : 75));
        }
        return out;
    }

    private static Priority priority(JsonValue v, String where) {
        if (v instanceof JsonString s) {
            String name = s.getString();
            Priority p = ClientValues.exactEnumOf(Priority.class, name);
            if (p != null) {
                return p;
            }
            throw invalid(where + ".priority '" + ClientText.echo(name) + "' is not one of " + List.of(Priority.values())
                    + ".");
        }
        throw invalid(where + ".priority must be one of " + List.of(Priority.values()) + ".");
    }

    private static int minutes(JsonValue v, String where) {
        return number(v, where, 1, MAX_MINUTES);
    }

    /** R49: digits only, read as text first; never a fraction, an exponent or a sign. */
    private static int number(JsonValue v, String where, int min, int max) {
        if (v instanceof JsonNumber n && n.toString().matches("[0-9]{1,9}")) {
            int value = Integer.parseInt(n.toString());
            if (value >= min && value <= max) {
                return value;
            }
        }
        throw invalid(where + " must be a whole number from " + min + " to " + max + ".");
    }

    private static InvalidInputException invalid(String detail) {
        return new InvalidInputException("sla.policy_invalid", detail);
    }
}
