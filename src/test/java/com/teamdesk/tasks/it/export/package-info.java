/**
 * Integration tests of the export end to end and of the engine's sweeps, against the real
 * PostgreSQL and Redis of {@code ./teamdesk test}:
 * <ul>
 * <li>{@link com.teamdesk.tasks.it.export.ExportEndToEndIT} — client-side, production worker and
 * timers on: CSV content against an oracle (filters, quoting, neutralisation, time zones), scope and
 * role at creation and at execution, 410 after expiry, reads after conditional updates;</li>
 * <li>{@link com.teamdesk.tasks.it.export.SweepsIT} — in-server, worker and timers off: dispatch
 * (R18) under concurrent sweeps, stall recovery (R19), reconciliation with the queue (R20), failing
 * sweeps, expiry and purge (R13).</li>
 * </ul>
 * Helpers: {@link com.teamdesk.tasks.it.export.RowLock} (test-held row locks that make "the job
 * is in flight" an observable sync point), {@link com.teamdesk.tasks.it.export.ClientQueue} (the
 * server's queue from the test JVM), {@link com.teamdesk.tasks.it.TestClock} with unique readings (a clock
 * whose readings name the sweep call that wrote them).
 */
package com.teamdesk.tasks.it.export;
