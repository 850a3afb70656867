package com.teamdesk.tasks.task.spi;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A completed export's CSV, ready to download: its name, size and digest, and the bytes as a
 * stream that reads the stored chunks one at a time (the kind's own store, e.g. the export's).
 *
 * @param fileName suggested file name, e.g. {@code teamdesk-export-demo-20261129-0815-<taskId>.csv}
 *                 (the task id keeps two exports of one minute apart)
 * @param size     bytes of the CSV
 * @param sha256   hex SHA-256 of the CSV
 * @param body     writes the UTF-8 bytes with BOM (R13)
 */
public record TaskResult(String fileName, long size, String sha256, Body body) {

    /** Writes the CSV's bytes to a stream. */
    @FunctionalInterface
    public interface Body {
        /**
         * @throws IOException when {@code out} fails, or the stored CSV turns out incomplete (then
         *                     the download must fail, not end early)
         */
        void writeTo(OutputStream out) throws IOException;
    }
}
