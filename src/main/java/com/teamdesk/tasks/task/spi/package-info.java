/**
 * The contract of a task kind: what a kind package ({@code export}, {@code reminder}, {@code digest}, a fifth one)
 * may import from the engine, and all it may. A kind is one {@link com.teamdesk.tasks.task.spi.TaskKindHandler}
 * bean; it runs an {@link com.teamdesk.tasks.task.spi.Execution} that holds a {@link com.teamdesk.tasks.task.spi.Lease}
 * (fencing token {@code executionId}) and asks the execution, never the ledger, for its writes. The task row as a kind
 * sees it ({@link com.teamdesk.tasks.task.spi.BackgroundTask}, its status, scope and job id), who asks
 * ({@link com.teamdesk.tasks.task.spi.Caller}), the request fields, rejections, pause points: all here.
 *
 * <p>Arrows: imported by every room of {@code task}; imports only {@code team}, {@code platform}, {@code common} and
 * the queue's {@code Job}.
 */
package com.teamdesk.tasks.task.spi;
