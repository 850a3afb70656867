/**
 * The EXPORT task kind (R13): reads a team's tickets matching the filters in keyset batches,
 * re-checks the owner's permission, writes lease-checked progress after each batch, and stores an
 * RFC 4180 CSV (UTF-8 with BOM, formulas neutralised) with one lease-checked final write.
 */
package com.teamdesk.tasks.task.export;
