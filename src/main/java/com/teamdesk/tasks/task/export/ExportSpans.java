package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.task.spi.SpanName;
import io.opentelemetry.api.common.AttributeKey;

/** The export's spans inside its execution's (R45), and their attributes. */
public enum ExportSpans implements SpanName {
    /** One export batch: its COPY and CSV (R13). */
    BATCH("export.batch");

    /** Rows of one export batch. */
    public static final AttributeKey<Long> ROWS = AttributeKey.longKey("teamdesk.export.rows");

    private final String spanName;

    ExportSpans(String spanName) {
        this.spanName = spanName;
    }

    @Override
    public String spanName() {
        return spanName;
    }
}
