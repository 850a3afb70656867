package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.team.SystemEventRow;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.io.StringReader;
import java.time.Instant;
import java.util.UUID;

/**
 * What someone did to a task, as {@code GET /api/v1/tasks/{id}/actions} shows it (issue 32, the task's timeline).
 *
 * @param id      the system event's increasing id
 * @param action  {@code RETRIED} (a new run started) or {@code CANCELLED}
 * @param run     the run it started (RETRIED) or stopped (CANCELLED), 0-based like the task's {@code run}
 * @param actorId who did it
 * @param by      {@code member} (through the task's own endpoints) or {@code operator} (the operator API)
 * @param at      when it committed
 * @param reason  why, when it was not asked for directly ({@code ticket closed}: closing a ticket cancels its
 *                waiting reminders, R24), else null
 */
@JsonbNillable
@JsonbPropertyOrder({"id", "action", "run", "actorId", "by", "at", "reason"})
@org.eclipse.microprofile.openapi.annotations.media.Schema(name = "TaskAction")
public record TaskActionJson(long id, String action, Integer run, UUID actorId, String by, Instant at,
        String reason) {

    /** @return the JSON form of one of the task's action events ({@code TaskService.ACTION_EVENTS}) */
    public static TaskActionJson of(SystemEventRow e) {
        JsonObject payload;
        try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(e.payloadJson() == null ? "{}" : e.payloadJson()))) {
            JsonValue v = r.readValue();
            payload = v instanceof JsonObject o ? o : JsonValue.EMPTY_JSON_OBJECT;
        }
        JsonValue run = payload.get("run");
        Integer n = run instanceof JsonNumber num ? Integer.valueOf(num.intValue())
                : run instanceof JsonString str && str.getString().matches("\\d{1,9}") ? Integer.valueOf(str.getString())
                : null;
        boolean operator = e.kind().startsWith("admin.");
        return new TaskActionJson(e.id(), e.kind().endsWith("cancelled") ? "CANCELLED" : "RETRIED", n, e.actorId(),
                operator ? "operator" : "member", e.createdAt(),
                payload.get("reason") instanceof JsonString why ? why.getString() : null);
    }
}
