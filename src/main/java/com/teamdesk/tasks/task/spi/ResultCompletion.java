package com.teamdesk.tasks.task.spi;

import java.time.Instant;

/**
 * A completion with a stored result (R13), as {@link ExecutionLedger#completeWithResult} writes it.
 *
 * @param size      bytes of the result
 * @param sha256    hex SHA-256 of the result
 * @param summary   what members read, e.g. {@code 12 tickets exported}
 * @param expiresAt when the result is no longer offered
 * @param now       the completion's time ({@code updatedAt})
 */
public record ResultCompletion(Lease lease, int size, String sha256, String summary, Instant expiresAt, Instant now) {
}
