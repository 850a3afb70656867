package com.teamdesk.tasks.task.spi;

import jakarta.enterprise.context.ApplicationScoped;

/** Production {@link PausePoints}: does nothing. */
@ApplicationScoped
public class NoPausePoints implements PausePoints {
    @Override
    public void reached(PausePoint point, Lease lease) {
        // Production: no pause, no fault.
    }
}
