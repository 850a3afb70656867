package com.teamdesk.tasks.queue;

/**
 * A job fetched for one execution, with what its outcome script needs so that it reads nothing back:
 * the lock value {@code token} every later transition checks (the worker's token, {@code '@'} and the
 * fetch time, see {@link #lockValue}), its attempts, backoff and retention.
 * {@code removeOnComplete}/{@code removeOnFail} are null for a record that has none.
 */
record FetchedJob(String id, String data, int attemptsMade, int attemptsStarted, int maxAttempts,
                  Backoff backoff, Retention removeOnComplete, Retention removeOnFail, String token) {

    /**
     * The lock value a fetch writes for {@code token} (issue 16, wave 4): {@code token@fetchTimeMs}, so that the
     * record need not be written at fetch; the outcome scripts record the fetch time as processedAt.
     */
    static String lockValue(String token, String fetchedAtMs) {
        return token + "@" + fetchedAtMs;
    }
}
