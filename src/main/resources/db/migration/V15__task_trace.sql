-- Issue 32 (R45): traces. Both columns stay NULL unless MicroProfile Telemetry is on (otel.sdk.disabled=false).
--   trace_parent: the W3C traceparent of the request that created the task (its POST's span), written once by
--                 the INSERT; every execution's span is its child, in every run.
--   trace_span:   the W3C traceparent of the span of the task's latest execution, written under that execution's
--                 lease right after its claim; the next execution (a retry, a new run, a takeover) reads it with
--                 its claim and links its span to it.
-- Neither is a column V8's change trigger or V13's execution trigger compares: writing them fires nothing.
ALTER TABLE background_task ADD COLUMN trace_parent text, ADD COLUMN trace_span text;
