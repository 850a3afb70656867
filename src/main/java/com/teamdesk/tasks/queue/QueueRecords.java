package com.teamdesk.tasks.queue;

import static com.teamdesk.tasks.queue.QueueReplies.list;
import static com.teamdesk.tasks.queue.QueueReplies.num;
import static com.teamdesk.tasks.queue.QueueReplies.str;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The producer's and the operator's scripts, for {@link Queue}: add (one or a pipelined batch), the derived job
 * record, removal, counts, the workers seen. One typed method per script, as {@link QueueStore} is for the
 * worker. Thread-safe when the client is (pooled).
 */
final class QueueRecords {

    private final UnifiedJedis redis;
    private final QueueKeys keys;

    /** @param keys the keys of a queue whose {@link QueueStore} was built (it checks the hash tag) */
    QueueRecords(UnifiedJedis redis, QueueKeys keys) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.keys = Objects.requireNonNull(keys, "keys");
    }

    // ---- producer -------------------------------------------------------------------------------------

    AddResult add(String jobId, String data, JobOptions options) {
        return addResult(QueueScripts.ADD.eval(redis, addKeys(jobId), addArgs(jobId, data, options)));
    }

    List<AddResult> addBulk(List<NewJob> jobs) {
        for (NewJob job : jobs) {
            QueueKeys.requireValidJobId(Objects.requireNonNull(job, "job").jobId());
        }
        AddResult[] results = new AddResult[jobs.size()];
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            pending.add(i);
        }
        boolean loaded = false;
        while (!pending.isEmpty()) {
            List<Response<Object>> replies = new ArrayList<>(pending.size());
            try (AbstractPipeline pipeline = redis.pipelined()) {
                for (int i : pending) {
                    NewJob job = jobs.get(i);
                    replies.add(QueueScripts.ADD.eval(pipeline,
                            addKeys(job.jobId()), addArgs(job.jobId(), job.data(), job.options())));
                }
                pipeline.sync();
            }
            List<Integer> noScript = new ArrayList<>();
            for (int k = 0; k < pending.size(); k++) {
                try {
                    results[pending.get(k)] = addResult(replies.get(k).get());
                } catch (JedisDataException e) {
                    if (!LuaScript.isNoScript(e) || loaded) {
                        throw e;
                    }
                    noScript.add(pending.get(k));
                }
            }
            if (!noScript.isEmpty()) {
                // NOSCRIPT ran nothing: load once and send those again, in order
                QueueScripts.ADD.load(redis, keys.base());
                loaded = true;
            }
            pending = noScript;
        }
        return List.of(results);
    }

    private List<String> addKeys(String jobId) {
        return List.of(keys.job(QueueKeys.requireValidJobId(jobId)), keys.waiting(), keys.delayed(), keys.marker(),
                keys.lanes(), keys.laneSequence());
    }

    private static List<String> addArgs(String jobId, String data, JobOptions o) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(o, "options");
        return List.of(jobId, data, Long.toString(o.delayMs()), QueueReplies.opts(o),
                Integer.toString(o.attempts()), Long.toString(o.backoff().baseDelayMs()), o.backoff().jitter() ? "1" : "0",
                o.group() == null ? "" : o.group(), Integer.toString(o.priority()), o.rateKey() == null ? "" : o.rateKey());
    }

    private static AddResult addResult(Object reply) {
        return num(reply) == 1 ? AddResult.ADDED : AddResult.DUPLICATE;
    }

    // ---- operator look-ups ----------------------------------------------------------------------------

    /** @return every worker seen within {@code keepMs}, live or gone; older entries are deleted */
    List<WorkerInfo> workers(long nowMs, long keepMs) {
        Set<String> live = liveWorkers();
        List<WorkerInfo> out = new ArrayList<>();
        for (Map.Entry<String, String> e : redis.hgetAll(keys.workersSeen()).entrySet()) {
            WorkerInfo info = WorkerInfo.parse(e.getKey(), e.getValue(), live.contains(e.getKey()));
            if (!info.live() && (info.lastBeatMs() < nowMs - keepMs)) {
                redis.hdel(keys.workersSeen(), e.getKey());
            } else {
                out.add(info);
            }
        }
        out.sort(java.util.Comparator.comparing(WorkerInfo::live).reversed().thenComparing(WorkerInfo::id));
        return out;
    }


    Set<String> liveWorkers() {
        Set<String> live = new LinkedHashSet<>();
        for (Object id : list(QueueScripts.LIVE_WORKERS.eval(redis, List.of(keys.workers()),
                List.of(keys.worker(""))))) {
            live.add(str(id));
        }
        return live;
    }

    /**
     * The record of a job, with what a fetch no longer writes to it derived (issue 16, wave 4): ACTIVE while
     * the id is in the active set, {@code attemptsStarted} = attemptsMade + stalledCounter (+ 1 while active:
     * every started execution ends completed or failed, counted in attemptsMade, or stalled, counted in
     * stalledCounter), {@code processedAt} of an active job from its lock value, {@code finishedAt} of a
     * completed job from its score in the completed set. A job fetched or completed by an earlier version
     * (state=active, processedAt and finishedAt in the record, a bare token as lock) reads the same.
     */
    Optional<JobRecord> getJob(String jobId) {
        Objects.requireNonNull(jobId, "jobId");
        List<Object> r = list(QueueScripts.GET_JOB.eval(redis,
                List.of(keys.job(jobId), keys.lock(jobId), keys.active(), keys.completed()), List.of(jobId)));
        if (r.isEmpty()) {
            return Optional.empty();
        }
        List<Object> flat = list(r.get(0));
        Map<String, String> h = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            h.put(str(flat.get(i)), str(flat.get(i + 1)));
        }
        boolean active = num(r.get(1)) == 1;
        String stateField = h.get("state");
        if (stateField == null) {
            throw new IllegalStateException("job record " + keys.job(jobId) + " has no state: not written by this queue");
        }
        JobState state = active ? JobState.ACTIVE : JobState.valueOf(stateField.toUpperCase(Locale.ROOT));
        int attemptsMade = intField(h, "attemptsMade");
        int stalledCounter = intField(h, "stalledCounter");
        Instant processedAt = instant(h.get("processedAt"));
        String lockedAt = active ? QueueStore.lockedAt(str(r.get(2))) : null;
        if (lockedAt != null) {
            processedAt = instant(lockedAt);
        }
        Instant finishedAt = instant(h.get("finishedAt"));
        String completedScore = str(r.get(3));
        if (finishedAt == null && state == JobState.COMPLETED && !completedScore.isEmpty()) {
            finishedAt = Instant.ofEpochMilli((long) Double.parseDouble(completedScore));
        }
        return Optional.of(new JobRecord(jobId, h.get("data"), state,
                attemptsMade, attemptsMade + stalledCounter + (active ? 1 : 0), maxAttempts(h),
                stalledCounter, intField(h, "progress"), h.get("failedReason"),
                state == JobState.FAILED && "1".equals(h.get("exhausted")),
                instant(h.get("addedAt")), processedAt, finishedAt));
    }

    /** @return 1 removed, 0 no such job, -1 refused (active with a live lock) */
    long remove(String jobId) {
        Objects.requireNonNull(jobId, "jobId");
        return num(QueueScripts.REMOVE.eval(redis,
                List.of(keys.job(jobId), keys.lock(jobId), keys.waiting(), keys.active(), keys.delayed(),
                        keys.completed(), keys.failed(), keys.lanes()),
                List.of(jobId)));
    }

    Map<JobState, Long> counts() {
        List<Object> r = list(QueueScripts.COUNTS.eval(redis,
                List.of(keys.waiting(), keys.delayed(), keys.active(), keys.completed(), keys.failed(), keys.lanes()),
                List.of()));
        Map<JobState, Long> counts = new EnumMap<>(JobState.class);
        counts.put(JobState.WAITING, num(r.get(0)));
        counts.put(JobState.DELAYED, num(r.get(1)));
        counts.put(JobState.ACTIVE, num(r.get(2)));
        counts.put(JobState.COMPLETED, num(r.get(3)));
        counts.put(JobState.FAILED, num(r.get(4)));
        return counts;
    }

    /** @return the group's active jobs when the cap was set */
    int setGroupCap(String group, Integer cap) {
        return (int) num(QueueScripts.SET_GROUP_CAP.eval(redis, List.of(keys.lanes(), keys.active(), keys.marker()),
                List.of(keys.jobPrefix(), group, cap == null ? "" : Integer.toString(cap))));
    }

    void setRateLimit(String rateKey, String limitAndWindow) {
        if (limitAndWindow == null) {
            redis.hdel(keys.rateLimits(), rateKey);
        } else {
            redis.hset(keys.rateLimits(), rateKey, limitAndWindow);
        }
    }

    Map<String, String> groupCaps() {
        return redis.hgetAll(keys.lanes() + "-caps");
    }

    Map<String, String> rateLimits() {
        return redis.hgetAll(keys.rateLimits());
    }

    List<GroupInfo> groups() {
        List<Object> flat = list(QueueScripts.GROUPS.eval(redis, List.of(keys.lanes(), keys.active()), List.of()));
        List<GroupInfo> out = new ArrayList<>(flat.size() / 5);
        for (int i = 0; i + 4 < flat.size(); i += 5) {
            String cap = str(flat.get(i + 2));
            String active = str(flat.get(i + 3));
            out.add(new GroupInfo(str(flat.get(i)), num(flat.get(i + 1)), cap.isEmpty() ? null : Integer.valueOf(cap),
                    active.isEmpty() ? null : Integer.valueOf(active), num(flat.get(i + 4)) == 1));
        }
        return out;
    }

    List<RateStatus> rateStatus() {
        List<Object> flat = list(QueueScripts.RATE_STATUS.eval(redis, List.of(keys.lanes(), keys.delayed()), List.of()));
        List<RateStatus> out = new ArrayList<>(flat.size() / 6);
        for (int i = 0; i + 5 < flat.size(); i += 6) {
            out.add(new RateStatus(str(flat.get(i)), (int) num(flat.get(i + 1)), num(flat.get(i + 2)),
                    num(flat.get(i + 3)), num(flat.get(i + 4)), Instant.ofEpochMilli(num(flat.get(i + 5)))));
        }
        return out;
    }

    /** @return the waiting jobs of the group ahead of the job in its lane, or empty when the job is not in it */
    Optional<Long> laneRank(String group, String jobId) {
        return Optional.ofNullable(redis.zrank(keys.lane(group), jobId));
    }

    void obliterate() {
        RedisClients.unlinkByPrefix(redis, keys.base());
    }

    /** maxAttempts of a record: from opts, or from the field of its own in a record written before opts. */
    private static int maxAttempts(Map<String, String> h) {
        String opts = h.get("opts");
        return opts == null ? intField(h, "maxAttempts") : Integer.parseInt(QueueReplies.optsParts(opts)[0]);
    }

    private static int intField(Map<String, String> h, String field) {
        String v = h.get(field);
        return v == null ? 0 : Integer.parseInt(v);
    }

    private static Instant instant(String epochMs) {
        return epochMs == null ? null : Instant.ofEpochMilli(Long.parseLong(epochMs));
    }
}
