package com.teamdesk.tasks.queue;

import static com.teamdesk.tasks.queue.QueueReplies.fetch;
import static com.teamdesk.tasks.queue.QueueReplies.fetchedJobs;
import static com.teamdesk.tasks.queue.QueueReplies.list;
import static com.teamdesk.tasks.queue.QueueReplies.num;
import static com.teamdesk.tasks.queue.QueueReplies.str;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.KeyValue;

/**
 * The worker's storage layer ({@link Worker}, {@link Completer}, {@link Housekeeping}, {@link Heartbeat}): one
 * typed method per script, so that the KEYS/ARGV layout of each script lives next to nothing else; the
 * producer's and operator's scripts are {@link QueueRecords}, reply decoding {@link QueueReplies}. Thread-safe
 * when the client is (pooled).
 *
 * <p>Over 300 lines: eleven scripts (moveToActive with two callers), each with its KEYS/ARGV layout, and the batched completion's retention
 * grouping, which must stay next to the one script it encodes for.
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
     * Reply of complete/fail; {@code next} is the job fetched in the same round trip, or null (a batched
     * completion may fetch one even when this execution's lock was lost: the fetch is for the slot, not the job).
     */
    record Finish(boolean lockLost, int attemptsMade, boolean exhausted, FetchedJob next) {
    }

    /** One job found stalled by the stalled check. */
    record Stalled(String id, boolean failed, int attemptsMade) {
    }

    // ---- worker transitions ---------------------------------------------------------------------------

    Fetch moveToActive(String token, long lockMs) {
        List<Object> r = list(QueueScripts.MOVE_TO_ACTIVE.eval(redis,
                List.of(keys.waiting(), keys.active(), keys.delayed(), keys.marker(), keys.lanes(), keys.laneSequence()),
                List.of(keys.jobPrefix(), token, Long.toString(lockMs), "")));
        return fetch(r, token);
    }

    /**
     * A reserved slot's fetch (issue 30, R42): like {@link #moveToActive(String, long)} but takes only a job of
     * priority {@code >= minPriority} (the first lane in rotation order whose next job qualifies), leaves the
     * marker alone and sets the urgent marker again when it took a job.
     */
    Fetch moveUrgentToActive(String token, long lockMs, int minPriority) {
        List<Object> r = list(QueueScripts.MOVE_TO_ACTIVE.eval(redis,
                List.of(keys.waiting(), keys.active(), keys.delayed(), keys.marker(), keys.lanes(), keys.laneSequence()),
                List.of(keys.jobPrefix(), token, Long.toString(lockMs), Integer.toString(minPriority))));
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

    /**
     * The reserved loop's wait: blocks (BZPOPMIN) until the urgent marker announces a job of priority {@code > 0},
     * {@code wakeKey} is written, or the timeout.
     *
     * @return the key that was popped, or null on timeout
     */
    String awaitUrgentMarker(long timeoutMs, String wakeKey) {
        KeyValue<String, Tuple> popped = redis.bzpopmin(timeoutMs / 1000.0, keys.urgentMarker(), wakeKey);
        return popped == null ? null : popped.getKey();
    }

    /** Puts back a marker this worker popped but will not act on (it is closing). */
    void restoreMarker() {
        redis.zadd(keys.marker(), 0, "0");
    }

    /** Puts back an urgent marker this worker's reserved loop popped but will not act on (it is closing). */
    void restoreUrgentMarker() {
        redis.zadd(keys.urgentMarker(), 0, "0");
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
                List.of(keys.waiting(), keys.active(), keys.delayed(), keys.completed(), keys.meta(), keys.lanes(),
                        keys.laneSequence()), args));
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
                List.of(keys.waiting(), keys.active(), keys.delayed(), keys.marker(), keys.failed(), keys.meta(),
                        keys.lanes(), keys.laneSequence()),
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
                List.of(keys.waiting(), keys.active(), keys.marker(), keys.failed(), keys.meta(), keys.stalledCheck(),
                        keys.lanes(), keys.laneSequence()),
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
}
