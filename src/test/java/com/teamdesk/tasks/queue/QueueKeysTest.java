package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Key naming in one place: "<prefix>:<queueName>:...". */
class QueueKeysTest {

    @Test
    void everyKeyStartsWithPrefixAndQueueName() {
        QueueKeys k = new QueueKeys("teamdesk", "tasks");
        assertEquals("teamdesk:tasks:", k.base());
        assertEquals("teamdesk:tasks:wait", k.waiting());
        assertEquals("teamdesk:tasks:active", k.active());
        assertEquals("teamdesk:tasks:delayed", k.delayed());
        assertEquals("teamdesk:tasks:completed", k.completed());
        assertEquals("teamdesk:tasks:failed", k.failed());
        assertEquals("teamdesk:tasks:marker", k.marker());
        assertEquals("teamdesk:tasks:meta", k.meta());
        assertEquals("teamdesk:tasks:job:T-0", k.job("T-0"));
        assertEquals("teamdesk:tasks:job:T-0:lock", k.lock("T-0"));
        assertEquals("teamdesk:tasks:workers:w1", k.worker("w1"));
        assertEquals("teamdesk:tasks:workers", k.workers());
    }

    @Test
    void namesAreValidated() {
        assertThrows(IllegalArgumentException.class, () -> new QueueKeys("", "q"));
        assertThrows(IllegalArgumentException.class, () -> new QueueKeys("p", "a:b"));
        assertThrows(IllegalArgumentException.class, () -> QueueKeys.requireValidJobId("x:lock"));
        assertThrows(NullPointerException.class, () -> QueueKeys.requireValidJobId(null));
        assertEquals("T-1", QueueKeys.requireValidJobId("T-1"));
    }
}
