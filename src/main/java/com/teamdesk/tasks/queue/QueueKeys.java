package com.teamdesk.tasks.queue;

import java.util.Objects;

/**
 * The one place that names the Redis keys of a queue: every key is {@code <prefix>:<queueName>:<suffix>}.
 * See {@code docs/queue.md} for each key's type, contents and TTL.
 *
 * <p>All keys of one queue must live on one Redis node; on Redis Cluster use a hash-tagged prefix such
 * as {@code {teamdesk}}.
 */
public final class QueueKeys {

    private final String base;

    /**
     * @param prefix    key prefix, non-empty (e.g. {@code teamdesk})
     * @param queueName queue name, non-empty, without {@code ':'}
     * @throws IllegalArgumentException if a name is empty or the queue name contains {@code ':'}
     * @throws NullPointerException     if a name is null
     */
    public QueueKeys(String prefix, String queueName) {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(queueName, "queueName");
        if (prefix.isEmpty() || queueName.isEmpty()) {
            throw new IllegalArgumentException("prefix and queueName must not be empty");
        }
        if (queueName.indexOf(':') >= 0) {
            throw new IllegalArgumentException("queueName must not contain ':': " + queueName);
        }
        this.base = prefix + ":" + queueName + ":";
    }

    /**
     * The prefix to use on a Redis Cluster: Redis hashes only the part between the first {@code '{'} and
     * the next {@code '}'} (when not empty), so keys that share that hash tag live in one slot and one
     * Lua script may touch them all.
     *
     * @param prefix a key prefix, non-empty
     * @return {@code prefix} when it already has a hash tag, else {@code "{" + prefix + "}"}
     * @throws IllegalArgumentException if the prefix is empty
     * @throws NullPointerException     if the prefix is null
     */
    public static String hashTagged(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("prefix must not be empty");
        }
        return hasHashTag(prefix) ? prefix : "{" + prefix + "}";
    }

    /** @return true when Redis Cluster would hash {@code key} by a non-empty {@code {…}} part of it */
    public static boolean hasHashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return false;
        }
        int close = key.indexOf('}', open + 1);
        return close > open + 1;
    }

    /**
     * Checks a caller-chosen job id. A {@code ':'} would let a job key collide with another job's lock key.
     *
     * @param jobId the id
     * @return the id
     * @throws IllegalArgumentException if the id is empty or contains {@code ':'}
     * @throws NullPointerException     if the id is null
     */
    public static String requireValidJobId(String jobId) {
        Objects.requireNonNull(jobId, "jobId");
        if (jobId.isEmpty() || jobId.indexOf(':') >= 0) {
            throw new IllegalArgumentException("job id must be non-empty and must not contain ':': " + jobId);
        }
        return jobId;
    }

    /** @return {@code <prefix>:<queue>:}, the start of every key of this queue */
    public String base() {
        return base;
    }

    /** @return LIST of the ungrouped waiting job ids, oldest first (grouped ones wait in {@link #lane}) */
    public String waiting() {
        return base + "wait";
    }

    /**
     * @return LIST of the lanes that hold waiting jobs, in the order a fetch serves them (issue 30, fair share):
     *         a group's name, or {@code ""} for the ungrouped lane {@link #waiting()}
     */
    public String lanes() {
        return base + "lanes";
    }

    /**
     * @param group a group's name ({@link JobOptions#group()})
     * @return ZSET of the group's waiting job ids, in serving order (priority, then arrival, with aging)
     */
    public String lane(String group) {
        return lanes() + ":" + group;
    }

    /** @return HASH rate key -> {@code limit:windowMs}, the rate limits a fetch enforces (issue 30) */
    public String rateLimits() {
        return lanes() + "-rates";
    }

    /**
     * @return ZSET with at most one member, the urgent marker the reserved loops of workers block on (BZPOPMIN,
     *         issue 30, R42): set whenever a job of priority {@code > 0} starts waiting and after each reserved
     *         fetch that took a job; derived from {@link #lanes()} so that the scripts reach it without a KEYS
     *         entry, in the queue's hash tag like every other key
     */
    public String urgentMarker() {
        return lanes() + "-urgent";
    }

    /** @return STRING, the queue's sequence that orders the jobs of a group's lane (INCR) */
    public String laneSequence() {
        return base + "lane-seq";
    }

    /** @return SET of active job ids */
    public String active() {
        return base + "active";
    }

    /** @return ZSET of delayed job ids scored by due time (epoch ms) */
    public String delayed() {
        return base + "delayed";
    }

    /** @return ZSET of completed job ids scored by finish time (epoch ms) */
    public String completed() {
        return base + "completed";
    }

    /** @return ZSET of failed job ids scored by finish time (epoch ms) */
    public String failed() {
        return base + "failed";
    }

    /** @return ZSET with at most one member, the wake-up marker blocked workers wait on (BZPOPMIN) */
    public String marker() {
        return base + "marker";
    }

    /** @return HASH of queue-wide state: the retention last applied to completed and failed records */
    public String meta() {
        return base + "meta";
    }

    /** @return STRING guard (SET NX PX) so that one stalled check runs per interval across workers */
    public String stalledCheck() {
        return base + "stalled-check";
    }

    /** @return STRING guard (SET NX PX) so that one periodic retention trim runs per interval across workers */
    public String retentionCheck() {
        return base + "retention-check";
    }

    /** @return SET of worker ids that have published a heartbeat (dead ones pruned on read) */
    public String workers() {
        return base + "workers";
    }

    /**
     * @return HASH worker id → the worker's last published {@link WorkerInfo} (no TTL): what operators see of
     *         workers whose heartbeat expired ("gone"); entries older than a day are pruned on read
     */
    public String workersSeen() {
        return base + "workers-seen";
    }

    /**
     * @param workerId the worker id
     * @return STRING heartbeat of one worker, with a TTL (R22)
     */
    public String worker(String workerId) {
        return base + "workers:" + workerId;
    }

    /**
     * @param workerId the worker id
     * @return ZSET a closing worker writes to wake its own blocked fetch
     */
    public String wake(String workerId) {
        return base + "wake:" + workerId;
    }

    /** @return {@code <prefix>:<queue>:job:}, the start of every job key (scripts append the job id) */
    public String jobPrefix() {
        return base + "job:";
    }

    /**
     * @param jobId the job id
     * @return HASH of one job record
     */
    public String job(String jobId) {
        return jobPrefix() + jobId;
    }

    /**
     * @param jobId the job id
     * @return STRING lock of an active job: the owning execution's token, with a TTL (R6)
     */
    public String lock(String jobId) {
        return job(jobId) + ":lock";
    }
}
