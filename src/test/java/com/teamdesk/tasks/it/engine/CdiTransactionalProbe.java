package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.platform.EnlistmentGuard;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/**
 * A CDI {@code @Transactional(REQUIRED)} method that reports whether a connection obtained inside it is
 * enlisted: the way the reminder began its transaction before issue 10 (docs/platform.md).
 */
@ApplicationScoped
public class CdiTransactionalProbe {

    @Inject
    EnlistmentGuard guard;

    /** @return true when a datasource connection inside this CDI-begun transaction has auto-commit off */
    @Transactional
    public boolean enlistedInsideCdiTransaction() {
        return guard.connectionEnlisted();
    }
}
