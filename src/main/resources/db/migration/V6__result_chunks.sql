-- Issue 16 (P3): an export's CSV is stored as chunks written while the export runs, instead of one
-- ~26 MB bytea written by the final UPDATE. The row keeps the result's size, SHA-256 (hex) and the
-- execution whose chunks are the result; the completion is a small lease-checked UPDATE that names
-- that execution (docs/decisions.md "Export results in chunks").

CREATE TABLE task_result_chunk (
    task_id       uuid NOT NULL REFERENCES background_task(id) ON DELETE CASCADE,
    execution_id  uuid NOT NULL,
    seq           integer NOT NULL CHECK (seq >= 0),
    bytes         bytea NOT NULL,
    PRIMARY KEY (task_id, execution_id, seq)
);

-- lz4 as for result_csv in V2 (pglz costs several times more for about the same size); elsewhere pglz.
DO $$
BEGIN
    ALTER TABLE task_result_chunk ALTER COLUMN bytes SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'task_result_chunk.bytes keeps the default compression: %', SQLERRM;
END
$$;

ALTER TABLE background_task
    ADD COLUMN result_execution_id uuid,
    ADD COLUMN result_size integer,
    ADD COLUMN result_sha256 text;

-- CSVs stored before this migration become chunks of 4 MiB under an execution id of their own, so
-- that there is one way to read a result; then the old column goes (its partial index with it).
UPDATE background_task SET result_execution_id = gen_random_uuid(), result_size = octet_length(result_csv),
        result_sha256 = encode(sha256(result_csv), 'hex')
    WHERE result_csv IS NOT NULL;
INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes)
    SELECT t.id, t.result_execution_id, s.seq, substring(t.result_csv FROM s.seq * 4194304 + 1 FOR 4194304)
    FROM background_task t, generate_series(0, greatest(octet_length(t.result_csv) - 1, 0) / 4194304) AS s(seq)
    WHERE t.result_csv IS NOT NULL;
ALTER TABLE background_task DROP COLUMN result_csv;

ALTER TABLE background_task ADD CONSTRAINT background_task_result_check
    CHECK ((result_execution_id IS NULL) = (result_sha256 IS NULL) AND (result_sha256 IS NULL) = (result_size IS NULL));

-- Purge of expired CSVs (R13: kept 24 h), as V1's index on result_csv was.
CREATE INDEX background_task_expiry_idx ON background_task (expires_at)
    WHERE result_sha256 IS NOT NULL;
