package com.teamdesk.tasks.queue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decoding of the scripts' replies and of a job record's {@code opts} field, shared by {@link QueueStore}
 * (the worker's scripts) and {@link QueueRecords} (the producer's and the operator's). Static, stateless.
 */
final class QueueReplies {

    private QueueReplies() {
    }

    /**
     * The job's fixed options as its record's {@code opts} field (issue 16: a fetch reads and returns one field
     * instead of seven): {@code maxAttempts:backoffMs:backoffJitter:completedMaxAgeSec:completedMaxCount:
     * failedMaxAgeSec:failedMaxCount}, jitter {@code 1}/{@code 0}; see helpers.lua.
     */
    static String opts(JobOptions o) {
        return o.attempts() + ":" + o.backoff().baseDelayMs() + ":" + (o.backoff().jitter() ? "1" : "0") + ":"
                + o.removeOnComplete().maxAgeSeconds() + ":" + o.removeOnComplete().maxCount() + ":"
                + o.removeOnFail().maxAgeSeconds() + ":" + o.removeOnFail().maxCount();
    }

    /**
     * The parts of an {@code opts} string (see {@link #opts}); a record written before that field existed
     * gets the same string built from its own fields by the fetch (helpers.lua, legacyOpts), with an empty
     * part where a field is missing.
     *
     * @throws IllegalStateException when the string does not have seven parts
     */
    static String[] optsParts(String opts) {
        String[] p = opts.split(":", -1);
        if (p.length != 7) {
            throw new IllegalStateException("job options not of the form maxAttempts:backoffMs:backoffJitter:"
                    + "completedMaxAgeSec:completedMaxCount:failedMaxAgeSec:failedMaxCount: " + opts);
        }
        return p;
    }

    /** A moveToActive reply {job, nextDue, now} (or fail's fourth element) for one token. */
    static Fetch fetch(List<Object> r, String token) {
        List<FetchedJob> jobs = fetchedJobs(list(r.get(0)), List.of(token), str(r.get(2)));
        return jobs.isEmpty() ? new Fetch(null, num(r.get(1))) : new Fetch(jobs.get(0), -1);
    }

    /**
     * Fetched jobs as fetchMany (helpers.lua) returns them, five values each: id, data, attemptsMade,
     * stalledCounter, opts; the i-th was locked for {@code tokens.get(i)} with the lock value
     * {@link FetchedJob#lockValue}{@code (token, fetchedAtMs)}. attemptsStarted = attemptsMade + stalledCounter + 1 (this
     * execution; see {@link QueueRecords#getJob}).
     */
    static List<FetchedJob> fetchedJobs(List<Object> flat, List<String> tokens, String fetchedAtMs) {
        List<FetchedJob> jobs = new ArrayList<>(flat.size() / 5);
        for (int i = 0; i + 4 < flat.size(); i += 5) {
            String[] o = optsParts(str(flat.get(i + 4)));
            Backoff backoff = new Backoff(Long.parseLong(o[1]), "1".equals(o[2]));
            int attemptsMade = intOrZero(flat.get(i + 2));
            int attemptsStarted = attemptsMade + intOrZero(flat.get(i + 3)) + 1;
            jobs.add(new FetchedJob(str(flat.get(i)), str(flat.get(i + 1)), attemptsMade, attemptsStarted,
                    Integer.parseInt(o[0]), backoff, retention(o[3], o[4]), retention(o[5], o[6]),
                    FetchedJob.lockValue(tokens.get(jobs.size()), fetchedAtMs)));
        }
        return jobs;
    }

    static int intOrZero(Object o) {
        return o == null ? 0 : (int) num(o);
    }

    /** @return the retention of two opts parts, null when the record has none (an empty part) */
    static Retention retention(String maxAgeSec, String maxCount) {
        return maxAgeSec.isEmpty() || maxCount.isEmpty() ? null
                : new Retention(Long.parseLong(maxAgeSec), Integer.parseInt(maxCount));
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object reply) {
        if (reply instanceof List<?> l) {
            return (List<Object>) l;
        }
        throw new IllegalStateException("unexpected script reply: " + reply);
    }

    static long num(Object o) {
        if (o instanceof Long l) {
            return l;
        }
        if (o instanceof Number n) {
            return n.longValue();
        }
        if (o instanceof String || o instanceof byte[]) {
            return Long.parseLong(str(o));
        }
        throw new IllegalStateException("unexpected script reply: " + o);
    }

    static String str(Object o) {
        if (o == null) {
            return null;
        }
        if (o instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return o.toString();
    }
}
