/**
 * The EXPORT task kind (R13): reads a team's tickets matching the filters in keyset batches, each
 * one PostgreSQL COPY that produces the CSV cells ({@code CopyCsv}), re-checks the owner's permission
 * after each, writes lease-checked progress after the first batch and then about once a second, and
 * stores an RFC 4180 CSV (UTF-8 with BOM, formulas neutralised) with one lease-checked final write.
 * {@link com.teamdesk.tasks.task.export.ExportHandler} is the kind (request and run).
 */
package com.teamdesk.tasks.task.export;
