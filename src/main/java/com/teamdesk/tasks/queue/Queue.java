package com.teamdesk.tasks.queue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import java.util.Objects;

import redis.clients.jedis.UnifiedJedis;

/**
 * Producer and operator view of one queue: adds jobs and looks them up. Thread-safe; one instance can be
 * shared. Every state change is one atomic Lua script (see {@code docs/queue.md}).
 *
 * <p>Redis errors surface as unchecked {@link redis.clients.jedis.exceptions.JedisException}s.
 */
public final class Queue {

    private final QueueStore store;
    private final QueueRecords records;

    /**
     * @param redis     a pooled client such as {@code redis.clients.jedis.RedisClient}; not closed by this class
     * @param prefix    key prefix, e.g. {@code teamdesk}
     * @param queueName queue name, without {@code ':'}
     * @throws IllegalArgumentException if a name is invalid (see {@link QueueKeys})
     * @throws NullPointerException     if an argument is null
     */
    public Queue(UnifiedJedis redis, String prefix, String queueName) {
        this.store = new QueueStore(Objects.requireNonNull(redis, "redis"), new QueueKeys(prefix, queueName));
        this.records = new QueueRecords(redis, store.keys());
    }

    /** @return the key names of this queue */
    public QueueKeys keys() {
        return store.keys();
    }

    /**
     * Adds a job unless its id already exists in any state, retained completed/failed records included
     * (R2): then nothing is changed and {@link AddResult#DUPLICATE} is returned. With a delay the job is
     * DELAYED until due, otherwise WAITING. One Lua script.
     *
     * @param jobId   caller-chosen id, non-empty, without {@code ':'} (e.g. {@code "<task>-<run>"}, R1)
     * @param data    opaque payload
     * @param options attempts, backoff, delay and retention
     * @return ADDED or DUPLICATE
     * @throws IllegalArgumentException if the id is invalid
     * @throws NullPointerException     if an argument is null
     */
    public AddResult add(String jobId, String data, JobOptions options) {
        return records.add(jobId, data, options);
    }

    /**
     * Adds several jobs in one pipelined round trip; each is added as by {@link #add}, in list order (so a
     * repeated id in the same list is a DUPLICATE).
     *
     * @param jobs the jobs
     * @return one result per job, in the same order
     * @throws IllegalArgumentException if an id is invalid (then nothing was sent)
     * @throws NullPointerException     if the list or an element is null
     */
    public List<AddResult> addBulk(List<NewJob> jobs) {
        return records.addBulk(Objects.requireNonNull(jobs, "jobs"));
    }

    /**
     * @param jobId the job id
     * @return the job record, or empty if there is none (never added, removed, or trimmed by retention)
     * @throws NullPointerException if the id is null
     */
    public Optional<JobRecord> getJob(String jobId) {
        return records.getJob(jobId);
    }

    /**
     * Deletes a job record, its lock and its membership in every list and set (operators and tests).
     * Refused for an ACTIVE job whose lock is still live.
     *
     * @param jobId the job id
     * @return true if a record was deleted; false if there was none or it is active with a live lock
     * @throws NullPointerException if the id is null
     */
    public boolean remove(String jobId) {
        return records.remove(jobId) == 1;
    }

    /**
     * @return the number of jobs in each state (every {@link JobState} present), read in one script
     */
    public Map<JobState, Long> counts() {
        return records.counts();
    }

    /**
     * Enforces retention on completed and failed records now (R5), with the retention of the most
     * recently finished job of each set; waiting, active and delayed jobs are never touched. Workers call
     * this periodically, so it also happens while the queue is idle.
     *
     * @return how many records were removed
     */
    public int trimRetention() {
        return store.trimRetention(0);
    }

    /**
     * @return ids of workers whose heartbeat key is live (R22)
     */
    public Set<String> liveWorkers() {
        return records.liveWorkers();
    }

    /**
     * Every worker seen in the last day (R22): live ones (heartbeat key present) first, then gone ones
     * (heartbeat expired or deleted at close) with their last published info.
     *
     * @return the workers, live first
     */
    public List<WorkerInfo> workers() {
        return records.workers(System.currentTimeMillis(), 86_400_000L);
    }

    /**
     * Issue 30: sets or clears the most jobs of one group active at once across every worker, atomically. A
     * group at its cap keeps its waiting jobs out of the rotation until one of its active jobs ends (completes,
     * fails, is deferred, or stalls and is moved back by the stalled check): the count is the group's jobs in
     * the active set, so it cannot leak. A cap below the number active now lets no new job of it start until
     * enough have ended.
     *
     * @param group a group name ({@link JobOptions#group()})
     * @param cap   1 or more, or null to clear
     * @return the group's jobs active when the cap was set
     * @throws IllegalArgumentException if the group is not a valid name or {@code cap < 1}
     */
    public int setGroupCap(String group, Integer cap) {
        if (!JobOptions.validGroup(Objects.requireNonNull(group, "group"))) {
            throw new IllegalArgumentException("not a group name: " + group);
        }
        if (cap != null && cap < 1) {
            throw new IllegalArgumentException("cap must be >= 1: " + cap);
        }
        return records.setGroupCap(group, cap);
    }

    /**
     * Issue 30: sets or clears a rate limit: at most {@code limit} jobs naming {@code rateKey}
     * ({@link JobOptions#rateKey()}) start per fixed window of {@code windowMs} (windows start at multiples of it, by
     * the Redis clock), across every worker. A job fetched over the limit goes back to delayed until its window
     * ends: it is not locked and its attempts do not change. One HSET/HDEL, atomic.
     *
     * @param limit null to clear, else 1 or more
     * @throws IllegalArgumentException if the key is not valid, {@code limit < 1} or {@code windowMs < 1}
     */
    public void setRateLimit(String rateKey, Integer limit, long windowMs) {
        if (!JobOptions.validRateKey(rateKey)) {
            throw new IllegalArgumentException("not a rate key: " + rateKey);
        }
        if (limit != null && (limit < 1 || windowMs < 1)) {
            throw new IllegalArgumentException("limit and windowMs must be >= 1: " + limit + ", " + windowMs);
        }
        records.setRateLimit(rateKey, limit == null ? null : limit + ":" + windowMs);
    }

    /** @return the groups' caps by group: one read of the caps (no count of the groups' jobs, see {@link #groups()}) */
    public Map<String, Integer> groupCaps() {
        Map<String, Integer> caps = new java.util.HashMap<>();
        records.groupCaps().forEach((group, cap) -> caps.put(group, Integer.valueOf(cap)));
        return caps;
    }

    /** @return the rate limits by rate key, each {@code limit:windowMs} */
    public Map<String, String> rateLimits() {
        return records.rateLimits();
    }

    /** @return the groups with waiting jobs or a cap (issue 30), in serving order, then parked, then capped */
    public List<GroupInfo> groups() {
        return records.groups();
    }

    /**
     * Issue 30: every rate limit's state in the current window of the Redis clock: how many jobs of it started and
     * how many are held back until the window ends. One script, O(rate limits + held jobs); for the operator's
     * view and the member's waiting reason, not for the worker.
     */
    public List<RateStatus> rateStatus() {
        return records.rateStatus();
    }

    /**
     * Issue 30: how many waiting jobs of a group are ahead of one job in its lane (they start before it, whatever
     * the other groups do). One ZRANK.
     *
     * @return the count ahead (0: it is next of its group), or empty when the job is not waiting in the lane
     *         (not yet added, delayed, active, finished, or of another group)
     * @throws IllegalArgumentException if the group is not a valid name
     */
    public Optional<Long> laneRank(String group, String jobId) {
        if (!JobOptions.validGroup(Objects.requireNonNull(group, "group"))) {
            throw new IllegalArgumentException("not a group name: " + group);
        }
        return records.laneRank(group, Objects.requireNonNull(jobId, "jobId"));
    }

    /**
     * Deletes every key of this queue (tests). Not atomic: do not run it while workers of the queue run.
     */
    public void obliterate() {
        records.obliterate();
    }
}
