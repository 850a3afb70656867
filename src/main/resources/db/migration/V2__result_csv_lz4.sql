-- Store export CSVs with lz4 instead of the default pglz: the final write of a 26 MB CSV took
-- 0.6-1.0 s with pglz and ~0.1 s with lz4 at about the same stored size (bench/notes/P3.md).
-- PostgreSQL 14+ built with lz4 (Debian's and the official image are); elsewhere keep pglz.
DO $$
BEGIN
    ALTER TABLE background_task ALTER COLUMN result_csv SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'result_csv keeps the default compression: %', SQLERRM;
END
$$;
