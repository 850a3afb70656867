package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.task.spi.BackgroundThreads;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads that store an export's result chunks while its next batches are copied ({@link ChunkedResult}): the
 * container's at background priority (R46, as the export's own body), made on demand; idle ones end after 60 s.
 */
@ApplicationScoped
public class ChunkStores {

    @Inject
    BackgroundThreads background;

    private ExecutorService pool;

    /** @return the executor of chunk stores, shared by every export of this instance */
    synchronized ExecutorService executor() {
        if (pool == null) {
            pool = Executors.newCachedThreadPool(background.threads());
        }
        return pool;
    }

    /** Stops the chunk-store threads when the application stops. */
    @PreDestroy
    synchronized void stop() {
        if (pool != null) {
            pool.shutdown();
        }
    }
}
