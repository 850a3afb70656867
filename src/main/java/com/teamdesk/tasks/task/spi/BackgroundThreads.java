package com.teamdesk.tasks.task.spi;

import java.util.concurrent.ThreadFactory;

/**
 * R46 as a kind sees it: the threads a background body starts itself (an export's chunk stores) run at the same low
 * CPU priority as the body (OS nice 19 where the JVM maps Java priorities). A kind injects this bean; the engine's
 * fair share provides it.
 */
public interface BackgroundThreads {
    /**
     * @return a factory of the container's managed threads at {@link Thread#MIN_PRIORITY}; a thread once lowered is
     *         never raised again, so give them background work only
     */
    ThreadFactory threads();
}
