package com.teamdesk.tasks.task.live;

import com.teamdesk.tasks.task.ledger.TaskReads.Versioned;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import java.util.UUID;

/**
 * One live subscriber of committed task changes as {@link LiveFanOut} holds it (an event stream of the API):
 * whose it is, what it follows, and how it takes a change. Every method only queues or reads state; none
 * blocks on the client.
 */
public interface LiveSubscriber {
    /** @return the user whose slot the subscriber holds */
    UUID user();

    /** @return the one task followed, or null for a team's */
    UUID taskId();

    /** @return the team followed, or null for a single task's */
    UUID teamId();

    /** @return whether the change is one this subscriber follows (visibility is checked when it is sent) */
    boolean follows(BackgroundTask t);

    /** @return the highest change sequence sent, for a resync after a lost notification */
    long highestSeq();

    /** Queues a change (in the listener's order). */
    void offer(Versioned change);

    /** The fan-out's periodic pass (every {@code teamdesk.events.probe-ms}): notice a gone or stuck client. */
    void watch(long nowNanos);

    /** Ends the subscriber because this server stops. */
    void stop();
}
