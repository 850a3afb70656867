/**
 * Issue 52 (R51-R54): many tasks as one. {@link com.teamdesk.tasks.task.batch.BatchService} creates a batch of
 * children (one transaction, one INSERT for the children) with an optional completion, reads and cancels it;
 * {@link com.teamdesk.tasks.task.batch.Prerequisites} checks what a task waits for ({@code after}). The counting
 * itself is the ledger's: migration V18's trigger moves a batch's count in the statement that ends a child, under
 * the child's lease, and creates the completion in the commit that ends the last child.
 */
package com.teamdesk.tasks.task.batch;
