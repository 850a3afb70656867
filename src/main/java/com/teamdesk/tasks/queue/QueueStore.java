package com.teamdesk.tasks.queue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.KeyValue;
import redis.clients.jedis.resps.Tuple;

/**
 * The storage layer shared by {@link Queue} and {@link Worker}: one typed method per script, so that the
 * KEYS/ARGV layout of each script lives next to nothing else. Thread-safe when the client is (pooled).
 */
final class QueueStore {

    /** Most records one script call removes from one set for one kind of retention limit. */
    static final int TRIM_BATCH = 1000;

    private final UnifiedJedis redis;
    private final QueueKeys keys;
    /**
     * The completed and the failed retention this store last wrote to meta; a finish writes it again only
     * when the job's retention differs (issue 16: no per-job read or write of meta). {@link #forgetRecordedRetention()}
     * makes the next finish of each kind write it again.
     */
    private final AtomicReference<Retention> recordedOnComplete = new AtomicReference<>();
    private final AtomicReference<Retention> recordedOnFail = new AtomicReference<>();

    /**
     * @throws IllegalArgumentException on a Redis Cluster when the keys share no hash tag (the scripts
     *                                  touch several keys of the queue, which must live in one slot)
     */
    QueueStore(UnifiedJedis redis, QueueKeys keys) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.keys = Objects.requireNonNull(keys, "keys");
        if (RedisClients.isCluster(redis) && !QueueKeys.hasHashTag(keys.base())) {
            throw new IllegalArgumentException("on a Redis Cluster the queue's key prefix needs a hash tag, e.g. "
                    + QueueKeys.hashTagged(keys.base().substring(0, keys.base().indexOf(':'))) + ": " + keys.base());
        }
    }

    QueueKeys keys() {
        return keys;
    }

    /**
     * A job fetched for one execution, with what its outcome script needs so that it reads nothing back:
     * the lock value {@code token} every later transition checks (the worker's token, {@code '@'} and the
     * fetch time, see {@link #lockValue}), its attempts, backoff and retention.
     * {@code removeOnComplete}/{@code removeOnFail} are null for a record that has none.
     */
    record FetchedJob(String id, String data, int attemptsMade, int attemptsStarted, int maxAttempts,
                      Backoff backoff, Retention removeOnComplete, Retention removeOnFail, String token) {
    }

    /** Reply of a fetch: a fetched job, or none and how long until the next delayed job is due (-1: none). */
    record Fetch(FetchedJob job, long nextDueInMs) {
    }

    /**
     * Reply of complete/fail; {@code next} is the job fetched in the same round trip, or null (a batched
     * completion may fetch one even when this execution's lock was lost: the fetch is for the slot, not the job).
     */
    record Finish(boolean lockLost, int attemptsMade, boolean exhausted, FetchedJob next) {
    }

    /** One job found stalled by the stalled check. */
    record Stalled(String id, boolean failed, int attemptsMade) {
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
        return List.of(keys.job(QueueKeys.requireValidJobId(jobId)), keys.waiting(), keys.delayed(), keys.marker());
    }

    private static List<String> addArgs(String jobId, String data, JobOptions o) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(o, "options");
        return List.of(jobId, data, Long.toString(o.delayMs()), opts(o),
                Integer.toString(o.attempts()), Long.toString(o.backoff().baseDelayMs()), o.backoff().jitter() ? "1" : "0");
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

    private static AddResult addResult(Object reply) {
        return num(reply) == 1 ? AddResult.ADDED : AddResult.DUPLICATE;
    }

    // ---- worker transitions ---------------------------------------------------------------------------

    Fetch moveToActive(String token, long lockMs) {
        List<Object> r = list(QueueScripts.MOVE_TO_ACTIVE.eval(redis,
                List.of(keys.waiting(), keys.active(), keys.delayed(), keys.marker()),
                List.of(keys.jobPrefix(), token, Long.toString(lockMs))));
        return fetch(r, token);
    }

    /**
     * Blocks (BZPOPMIN, no polling) until the marker announces work, this worker is woken, or the timeout.
     *
     * @return the key that was popped, or null on timeout
     */
    String awaitMarker(long timeoutMs, String wakeKey) {
        KeyValue<String, Tuple> popped = redis.bzpopmin(timeoutMs / 1000.0, keys.marker(), wakeKey);
        return popped == null ? null : popped.getKey();
    }

    /** Puts back a marker this worker popped but will not act on (it is closing). */
    void restoreMarker() {
        redis.zadd(keys.marker(), 0, "0");
    }

    /** Wakes the blocked fetch of the worker owning {@code wakeKey}. */
    void wake(String wakeKey) {
        redis.zadd(wakeKey, 0, "0");
    }

    boolean exists(String key) {
        return redis.exists(key);
    }

    void deleteKey(String key) {
        redis.del(key);
    }

    /**
     * Completes {@code job} under its lock (R6), applies its completed retention (R5) and, when
     * {@code nextToken} is not null, fetches the next job for that token in the same script.
     */
    Finish complete(FetchedJob job, String nextToken, long lockMs) {
        Completions done = completeMany(List.of(new Completion(job, -1)),
                nextToken == null ? List.of() : List.of(nextToken), lockMs);
        FetchedJob next = done.next().isEmpty() ? null : done.next().get(0);
        return done.lockLost()[0] ? new Finish(true, 0, false, next) : new Finish(false, job.attemptsMade() + 1, false, next);
    }

    /**
     * One finishing execution for {@link #completeMany}: the job as fetched and the progress to record with
     * its completion, 0-100, or -1 to leave the progress as it is.
     */
    record Completion(FetchedJob job, int progress) {
    }

    /**
     * Reply of {@link #completeMany}: {@code lockLost[i]} for the i-th completion (true: nothing changed for
     * it), the jobs fetched (the i-th locked for the i-th token; fewer when fewer were waiting) and, when none
     * was fetched, ms until the next delayed job is due (-1: none, or jobs were fetched).
     */
    record Completions(boolean[] lockLost, List<FetchedJob> next, long nextDueInMs) {
    }

    /**
     * Completes a batch of executions in ONE script (issue 16): each under its own lock (R6), with its
     * progress when given; applies each distinct completed retention of the batch (R5); then fetches up to
     * {@code nextTokens.size()} next jobs, the i-th locked for the i-th token.
     *
     * @param done       at least one completion
     * @param nextTokens lock tokens for the jobs to fetch; empty to fetch none
     */
    Completions completeMany(List<Completion> done, List<String> nextTokens, long lockMs) {
        // the completions grouped by their completed retention, in the order each retention first occurs: the
        // script gets each retention once per group (issue 16); sent[p] = the index in done of the p-th one sent
        Map<Retention, List<Integer>> groups = new LinkedHashMap<>();
        List<Integer> noRetention = null;
        for (int i = 0; i < done.size(); i++) {
            Retention keep = done.get(i).job().removeOnComplete();
            if (keep == null) {
                if (noRetention == null) {
                    noRetention = new ArrayList<>();
                }
                noRetention.add(i);
            } else {
                groups.computeIfAbsent(keep, k -> new ArrayList<>()).add(i);
            }
        }
        Retention recorded = recordedOnComplete.get();
        Retention record = null;
        for (Retention keep : groups.keySet()) {
            if (!keep.equals(recorded)) {
                record = keep;
                break;
            }
        }
        List<String> args = new ArrayList<>(7 + (groups.size() + 1) * 3 + done.size() * 4 + nextTokens.size());
        args.add(keys.jobPrefix());
        args.add(Long.toString(lockMs));
        args.add(record == null ? "0" : "1");
        args.add(maxAge(record));
        args.add(maxCount(record));
        args.add(Integer.toString(groups.size() + (noRetention == null ? 0 : 1)));
        args.add(Integer.toString(nextTokens.size()));
        int[] sent = new int[done.size()];
        int p = 0;
        for (Map.Entry<Retention, List<Integer>> group : groups.entrySet()) {
            p = addGroup(args, group.getKey(), group.getValue(), done, sent, p);
        }
        if (noRetention != null) {
            addGroup(args, null, noRetention, done, sent, p);
        }
        args.addAll(nextTokens);
        List<Object> r = list(QueueScripts.COMPLETE.eval(redis,
                List.of(keys.waiting(), keys.active(), keys.delayed(), keys.completed(), keys.meta()), args));
        boolean[] lockLost = new boolean[done.size()];
        for (Object position : list(r.get(0))) {
            lockLost[sent[(int) num(position) - 1]] = true;
        }
        if (record != null) {
            List<Integer> recordedGroup = groups.get(record);
            for (int i : recordedGroup) {
                if (!lockLost[i]) {
                    recordedOnComplete.set(record);
                    break;
                }
            }
        }
        return new Completions(lockLost, fetchedJobs(list(r.get(1)), nextTokens, str(r.get(3))), num(r.get(2)));
    }

    /** Appends one retention group of complete.lua's ARGV; @return the next send position. */
    private static int addGroup(List<String> args, Retention keep, List<Integer> members, List<Completion> done,
                                int[] sent, int position) {
        args.add(maxAge(keep));
        args.add(maxCount(keep));
        args.add(Integer.toString(members.size()));
        int p = position;
        for (int i : members) {
            Completion c = done.get(i);
            args.add(c.job().id());
            args.add(c.job().token());
            args.add(Integer.toString(c.job().attemptsMade() + 1));
            args.add(c.progress() < 0 ? "" : Integer.toString(c.progress()));
            sent[p++] = i;
        }
        return p;
    }

    /**
     * Fails one execution of {@code job} under its lock (R6): retry after {@code retryDelayMs} (R4) or, when
     * unrecoverable or out of attempts, fail for good with its failed retention (R5); when {@code nextToken}
     * is not null, fetches the next job for that token in the same script.
     */
    Finish fail(FetchedJob job, String reason, boolean unrecoverable, long retryDelayMs, String nextToken,
                long lockMs) {
        Retention keep = job.removeOnFail();
        boolean record = keep != null && !keep.equals(recordedOnFail.get());
        Object reply = QueueScripts.FAIL.eval(redis,
                List.of(keys.waiting(), keys.active(), keys.delayed(), keys.marker(), keys.failed(), keys.meta()),
                List.of(keys.jobPrefix(), job.id(), job.token(), reason, unrecoverable ? "1" : "0",
                        Long.toString(retryDelayMs), Integer.toString(job.maxAttempts()),
                        maxAge(keep), maxCount(keep), record ? "1" : "0",
                        nextToken == null ? "0" : "1", nextToken == null ? "" : nextToken, Long.toString(lockMs)));
        List<Object> r = list(reply);
        if (num(r.get(0)) < 0) {
            return new Finish(true, 0, false, null);
        }
        boolean exhausted = num(r.get(2)) == 1;
        if (record && exhausted) {
            recordedOnFail.set(keep);
        }
        FetchedJob next = r.size() > 3 ? fetch(list(r.get(3)), nextToken).job() : null;
        return new Finish(false, (int) num(r.get(1)), exhausted, next);
    }

    /**
     * Issue 28: puts {@code job} back in delayed for {@code delayMs} under its lock (R6) without counting an
     * execution ({@code attemptsMade} unchanged); see defer.lua.
     *
     * @return false when the lock was lost (nothing changed)
     */
    boolean defer(FetchedJob job, long delayMs, String reason) {
        List<Object> r = list(QueueScripts.DEFER.eval(redis, List.of(keys.active(), keys.delayed(), keys.marker()),
                List.of(keys.jobPrefix(), job.id(), job.token(), Long.toString(Math.max(1, delayMs)), reason)));
        return num(r.get(0)) > 0;
    }

    /** Makes the next complete and the next exhausting fail write their retention to meta again. */
    void forgetRecordedRetention() {
        recordedOnComplete.set(null);
        recordedOnFail.set(null);
    }

    private static String maxAge(Retention keep) {
        return keep == null ? "" : Long.toString(keep.maxAgeSeconds());
    }

    private static String maxCount(Retention keep) {
        return keep == null ? "" : Integer.toString(keep.maxCount());
    }

    /**
     * Extends the locks still held by the given executions.
     *
     * @param held job id and lock token of each execution
     * @return the ids whose lock was missing or held by another token
     */
    List<String> extendLocks(List<Map.Entry<String, String>> held, long lockMs) {
        List<String> lockKeys = new ArrayList<>(held.size());
        List<String> args = new ArrayList<>(held.size() + 1);
        args.add(Long.toString(lockMs));
        for (Map.Entry<String, String> e : held) {
            lockKeys.add(keys.lock(e.getKey()));
            args.add(e.getValue());
        }
        List<String> lost = new ArrayList<>();
        for (Object index : list(QueueScripts.EXTEND_LOCKS.eval(redis, lockKeys, args))) {
            lost.add(held.get((int) num(index) - 1).getKey());
        }
        return lost;
    }

    /** @return false when the lock is not held by {@code token} (nothing written) */
    boolean updateProgress(String jobId, String token, int percent) {
        return num(QueueScripts.UPDATE_PROGRESS.eval(redis, List.of(keys.job(jobId), keys.lock(jobId)),
                List.of(token, Integer.toString(percent)))) == 1;
    }

    List<Stalled> moveStalledJobs(int maxStalledCount, long guardMs, String reason) {
        Object reply = QueueScripts.MOVE_STALLED.eval(redis,
                List.of(keys.waiting(), keys.active(), keys.marker(), keys.failed(), keys.meta(), keys.stalledCheck()),
                List.of(keys.jobPrefix(), Integer.toString(maxStalledCount), Long.toString(guardMs), reason));
        List<Stalled> stalled = new ArrayList<>();
        for (Object o : list(reply)) {
            List<Object> s = list(o);
            stalled.add(new Stalled(str(s.get(0)), num(s.get(1)) == 1, (int) num(s.get(2))));
        }
        return stalled;
    }

    /**
     * Enforces retention (R5) until nothing is left to remove.
     *
     * @param guardMs when positive, skip if another caller trimmed within this many ms
     * @return records removed
     */
    int trimRetention(long guardMs) {
        int total = 0;
        long guard = guardMs;
        while (true) {
            List<Object> r = list(QueueScripts.TRIM_RETENTION.eval(redis,
                    List.of(keys.completed(), keys.failed(), keys.meta(), keys.retentionCheck()),
                    List.of(keys.jobPrefix(), Long.toString(guard), Integer.toString(TRIM_BATCH))));
            long completed = num(r.get(0));
            long failed = num(r.get(1));
            total += (int) (completed + failed);
            if (completed < TRIM_BATCH && failed < TRIM_BATCH) {
                return total;
            }
            guard = 0; // we hold this interval's guard: continue the batches
        }
    }

    void heartbeat(String workerId, long ttlMs, String value) {
        QueueScripts.HEARTBEAT.eval(redis, List.of(keys.worker(workerId), keys.workers(), keys.workersSeen()),
                List.of(workerId, Long.toString(ttlMs), value));
    }

    void removeHeartbeat(String workerId, String lastValue) {
        heartbeat(workerId, 0, lastValue);
    }

    /** @return every worker seen within {@code keepMs}, live or gone; older entries are deleted */
    List<WorkerInfo> workers(long nowMs, long keepMs) {
        Set<String> live = liveWorkers();
        List<WorkerInfo> out = new java.util.ArrayList<>();
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

    // ---- operator look-ups ----------------------------------------------------------------------------

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
        String lockedAt = active ? lockedAt(str(r.get(2))) : null;
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

    /**
     * The lock value a fetch writes for {@code token} (issue 16, wave 4): {@code token@fetchTimeMs}, so that the
     * record need not be written at fetch; the outcome scripts record the fetch time as processedAt.
     */
    static String lockValue(String token, String fetchedAtMs) {
        return token + "@" + fetchedAtMs;
    }

    /** The fetch time (epoch ms, as a string) in a lock value written by a fetch of this version, else null. */
    static String lockedAt(String lockValue) {
        if (lockValue == null) {
            return null;
        }
        int at = lockValue.lastIndexOf('@');
        if (at < 0 || at == lockValue.length() - 1) {
            return null;
        }
        for (int i = at + 1; i < lockValue.length(); i++) {
            if (!Character.isDigit(lockValue.charAt(i))) {
                return null;
            }
        }
        return lockValue.substring(at + 1);
    }

    /** @return 1 removed, 0 no such job, -1 refused (active with a live lock) */
    long remove(String jobId) {
        Objects.requireNonNull(jobId, "jobId");
        return num(QueueScripts.REMOVE.eval(redis,
                List.of(keys.job(jobId), keys.lock(jobId), keys.waiting(), keys.active(), keys.delayed(),
                        keys.completed(), keys.failed()),
                List.of(jobId)));
    }

    Map<JobState, Long> counts() {
        List<Object> r = list(QueueScripts.COUNTS.eval(redis,
                List.of(keys.waiting(), keys.delayed(), keys.active(), keys.completed(), keys.failed()), List.of()));
        Map<JobState, Long> counts = new EnumMap<>(JobState.class);
        counts.put(JobState.WAITING, num(r.get(0)));
        counts.put(JobState.DELAYED, num(r.get(1)));
        counts.put(JobState.ACTIVE, num(r.get(2)));
        counts.put(JobState.COMPLETED, num(r.get(3)));
        counts.put(JobState.FAILED, num(r.get(4)));
        return counts;
    }

    void obliterate() {
        RedisClients.unlinkByPrefix(redis, keys.base());
    }

    // ---- reply decoding -------------------------------------------------------------------------------

    /** A moveToActive reply {job, nextDue, now} (or fail's fourth element) for one token. */
    private static Fetch fetch(List<Object> r, String token) {
        List<FetchedJob> jobs = fetchedJobs(list(r.get(0)), List.of(token), str(r.get(2)));
        return jobs.isEmpty() ? new Fetch(null, num(r.get(1))) : new Fetch(jobs.get(0), -1);
    }

    /**
     * Fetched jobs as fetchMany (helpers.lua) returns them, five values each: id, data, attemptsMade,
     * stalledCounter, opts; the i-th was locked for {@code tokens.get(i)} with the lock value
     * {@link #lockValue}{@code (token, fetchedAtMs)}. attemptsStarted = attemptsMade + stalledCounter + 1 (this
     * execution; see {@link #getJob}).
     */
    private static List<FetchedJob> fetchedJobs(List<Object> flat, List<String> tokens, String fetchedAtMs) {
        List<FetchedJob> jobs = new ArrayList<>(flat.size() / 5);
        for (int i = 0; i + 4 < flat.size(); i += 5) {
            String[] o = optsParts(str(flat.get(i + 4)));
            Backoff backoff = new Backoff(Long.parseLong(o[1]), "1".equals(o[2]));
            int attemptsMade = intOrZero(flat.get(i + 2));
            int attemptsStarted = attemptsMade + intOrZero(flat.get(i + 3)) + 1;
            jobs.add(new FetchedJob(str(flat.get(i)), str(flat.get(i + 1)), attemptsMade, attemptsStarted,
                    Integer.parseInt(o[0]), backoff, retention(o[3], o[4]), retention(o[5], o[6]),
                    lockValue(tokens.get(jobs.size()), fetchedAtMs)));
        }
        return jobs;
    }

    private static int intOrZero(Object o) {
        return o == null ? 0 : (int) num(o);
    }

    /** @return the retention of two opts parts, null when the record has none (an empty part) */
    private static Retention retention(String maxAgeSec, String maxCount) {
        return maxAgeSec.isEmpty() || maxCount.isEmpty() ? null
                : new Retention(Long.parseLong(maxAgeSec), Integer.parseInt(maxCount));
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object reply) {
        if (reply instanceof List<?> l) {
            return (List<Object>) l;
        }
        throw new IllegalStateException("unexpected script reply: " + reply);
    }

    private static long num(Object o) {
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

    private static String str(Object o) {
        if (o == null) {
            return null;
        }
        if (o instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        return o.toString();
    }

    /** maxAttempts of a record: from opts, or from the field of its own in a record written before opts. */
    private static int maxAttempts(Map<String, String> h) {
        String opts = h.get("opts");
        return opts == null ? intField(h, "maxAttempts") : Integer.parseInt(optsParts(opts)[0]);
    }

    private static int intField(Map<String, String> h, String field) {
        String v = h.get(field);
        return v == null ? 0 : Integer.parseInt(v);
    }

    private static Instant instant(String epochMs) {
        return epochMs == null ? null : Instant.ofEpochMilli(Long.parseLong(epochMs));
    }
}
