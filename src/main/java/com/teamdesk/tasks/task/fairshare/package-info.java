/**
 * Fair share between teams and between urgent and background work (issue 30): an operator's caps and rate limits
 * per team ({@link com.teamdesk.tasks.task.fairshare.TeamQueueLimits}, R40), the urgency threshold
 * ({@link com.teamdesk.tasks.task.fairshare.UrgentPriority}, R42), background bodies on low-priority threads
 * ({@link com.teamdesk.tasks.task.fairshare.BackgroundCpu}, R46), their statements bounded
 * ({@link com.teamdesk.tasks.task.fairshare.BackgroundStatements}, R48) and yielding to urgent requests
 * ({@link com.teamdesk.tasks.task.fairshare.UrgentWork}, R47). The engine meets R46-R48 through one seam,
 * {@link com.teamdesk.tasks.task.fairshare.FairShare} (a request's share, an execution's share); a kind meets them only
 * through the contract: {@code spi.Execution#beginStatement} (backed by {@code BackgroundStatements}, an
 * {@code spi.StatementPermits}) and {@code spi.BackgroundThreads} (backed by {@code BackgroundCpu}). See
 * docs/fair-share.md.
 *
 * <p>Arrows: imports {@code ledger}, {@code spi}; imported by the engine, the services and {@code observe} (gauges).
 */
package com.teamdesk.tasks.task.fairshare;
