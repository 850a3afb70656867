package com.teamdesk.tasks.platform;

import java.lang.management.ManagementFactory;
import java.util.UUID;

/** The id of this server instance as operators see it: {@code pid@host/<random>}, fixed for the JVM's life. */
public final class InstanceId {
    private static final String ID = ManagementFactory.getRuntimeMXBean().getName() + "/"
            + UUID.randomUUID().toString().substring(0, 8);

    private InstanceId() {
    }

    /** @return this instance's id */
    public static String get() {
        return ID;
    }
}
