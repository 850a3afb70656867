package com.teamdesk.tasks.queue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;

/**
 * What a worker publishes with its heartbeat (R22), as operators see it.
 *
 * @param id          the worker id ({@link Worker#workerId()})
 * @param host        {@code pid@host} of the worker's JVM
 * @param startedAtMs when the worker started, epoch ms
 * @param concurrency processing slots
 * @param busy        slots reserved or processing a job at the last beat
 * @param lastBeatMs  the last heartbeat, epoch ms
 * @param live        true while its heartbeat key exists; false once it expired or the worker closed ("gone")
 */
public record WorkerInfo(String id, String host, long startedAtMs, int concurrency, int busy, long lastBeatMs,
        boolean live) {

    /** @return the JSON stored in Redis (without {@code live}, which is read from the heartbeat key) */
    String toJson() {
        return Json.createObjectBuilder().add("host", host).add("startedAt", startedAtMs)
                .add("concurrency", concurrency).add("busy", busy).add("lastBeat", lastBeatMs).build().toString();
    }

    /** Parses a stored value; a value of an older format ({@code "pid@host concurrency=N"}) keeps its text as host. */
    static WorkerInfo parse(String id, String json, boolean live) {
        if (json == null || !json.startsWith("{")) {
            return new WorkerInfo(id, json, 0, 0, 0, 0, live);
        }
        try (JsonReader r = Json.createReader(new StringReader(json))) {
            JsonObject o = r.readObject();
            return new WorkerInfo(id, o.getString("host", ""), o.getJsonNumber("startedAt").longValue(),
                    o.getInt("concurrency", 0), o.getInt("busy", 0), o.getJsonNumber("lastBeat").longValue(), live);
        }
    }
}
