package com.teamdesk.tasks.task;

/**
 * A completed export's CSV, ready to download.
 *
 * @param fileName suggested file name, e.g. {@code teamdesk-export-demo-20261129-0815-<taskId>.csv}
 *                 (the task id keeps two exports of one minute apart)
 * @param csv      UTF-8 bytes with BOM (R13)
 */
public record TaskResult(String fileName, byte[] csv) {
}
