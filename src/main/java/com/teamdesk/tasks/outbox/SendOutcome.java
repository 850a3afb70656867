package com.teamdesk.tasks.outbox;

/** What one send of an outbox row came to (R60). */
enum SendOutcome {
    /** The server's 2xx: SENT. */
    SENT,
    /** The server's 4xx: tried again after a backoff. */
    TRANSIENT,
    /** The server's 5xx, or an address that is not one: FAILED. */
    PERMANENT,
    /** The connection ended after the message's final dot, before the reply: sent again with the same Message-ID. */
    UNKNOWN,
    /** The connection ended before the final dot: tried again after a backoff. */
    LOST
}
