package com.teamdesk.tasks.queue;

/** Reply of a fetch: a fetched job, or none and how long until the next delayed job is due (-1: none). */
record Fetch(FetchedJob job, long nextDueInMs) {
}
