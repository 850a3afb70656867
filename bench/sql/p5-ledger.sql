-- P5 data: 1 000 000 background_task rows on the V1 schema (applied before this file), mostly COMPLETED.
-- Rows get their status from k = n * 7919 mod 1 000 000 (a permutation of 0..999 999), so the few "live"
-- rows are scattered through the heap as they would be after months of use:
--   k <     200  WAITING, due, not dispatched (a full dispatch batch; bench.P5Sweeps narrows it per scenario;
--                marked filters.bench = 'due' so that it can find them again)
--   k <     300  WAITING, run_at in the future, not dispatched
--   k <   2 300  WAITING, dispatched (in the queue)
--   k <   2 500  RUNNING, written within the last 60 s (healthy)
--   k <   2 700  RUNNING, no write for 3-10 min (stalled: the recovery sweep's rows)
--   k <  12 700  FAILED
--   otherwise    COMPLETED (the last 2 000 of them still hold a small CSV)
-- Times are relative to now(); created_at spreads over the last 90 days.
\set ON_ERROR_STOP 1
-- The row count is a psql variable (bench/run: BENCH_P5_ROWS, e.g. 10000000 for issue 17); default 1 000 000.
-- N and 7919 must be coprime (any N not a multiple of the prime 7919). The live rows stay the same few
-- thousand whatever N; only the finished part grows.
\if :{?rows}
\else
\set rows 1000000
\endif
-- Triggers of later migrations (pg_notify per visible change, issue 14) are not what is measured here.
ALTER TABLE background_task DISABLE TRIGGER USER;
INSERT INTO app_user (id, username, display_name)
SELECT gen_random_uuid(), 'bench-user-' || u, 'Bench user ' || u FROM generate_series(1, 200) u;
INSERT INTO team (id, slug, name)
SELECT gen_random_uuid(), 'bench-team-' || t, 'Bench team ' || t FROM generate_series(1, 20) t;

CREATE TEMP TABLE bench_user AS SELECT row_number() OVER (ORDER BY username) - 1 AS i, id FROM app_user;
CREATE TEMP TABLE bench_team AS SELECT row_number() OVER (ORDER BY slug) - 1 AS i, id FROM team;

INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts, progress,
                             execution_id, dispatched_at, run_at, last_error, result_execution_id, result_size,
                             result_sha256, result_summary,
                             expires_at, created_at, updated_at)
SELECT gen_random_uuid(),
       CASE WHEN n % 4 = 0 THEN 'REMINDER' ELSE 'EXPORT' END,
       t.id, u.id,
       CASE WHEN n % 3 = 0 THEN 'TEAM' ELSE 'SELF' END,
       CASE WHEN k < 200 THEN '{"status":["OPEN"],"bench":"due"}' ELSE '{"status":["OPEN"]}' END::jsonb,
       s.status,
       CASE WHEN s.status = 'FAILED' AND n % 5 = 0 THEN 1 ELSE 0 END,
       CASE WHEN s.status IN ('COMPLETED', 'FAILED', 'RUNNING') THEN 1 ELSE 0 END,
       CASE WHEN s.status = 'COMPLETED' THEN 100 WHEN s.status = 'RUNNING' THEN 40 ELSE 0 END,
       CASE WHEN s.status = 'RUNNING' THEN gen_random_uuid() END,
       CASE WHEN s.status = 'WAITING' AND k < 300 THEN NULL ELSE s.created_at + interval '20 ms' END,
       CASE WHEN k >= 200 AND k < 300 THEN now() + interval '1 hour' ELSE s.created_at END,
       CASE WHEN s.status = 'FAILED' THEN 'The export has more rows than the limit; narrow the filters.' END,
       CASE WHEN s.status = 'COMPLETED' AND k >= :rows - 2000 THEN gen_random_uuid() END,
       CASE WHEN s.status = 'COMPLETED' AND k >= :rows - 2000 THEN 12 END,
       CASE WHEN s.status = 'COMPLETED' AND k >= :rows - 2000
            THEN encode(sha256(convert_to('id,title' || chr(10) || '1,t', 'UTF8')), 'hex') END,
       CASE WHEN s.status = 'COMPLETED' THEN (n % 500) || ' tickets' END,
       CASE WHEN s.status = 'COMPLETED' THEN s.updated_at + interval '24 hours' END,
       s.created_at,
       s.updated_at
FROM generate_series(1, :rows) n
CROSS JOIN LATERAL (SELECT (n::bigint * 7919) % :rows AS k) kk
CROSS JOIN LATERAL (
    SELECT status, created_at,
           CASE status
               WHEN 'RUNNING' THEN CASE WHEN k < 2500 THEN now() - (k % 60) * interval '1 s'
                                        ELSE now() - interval '3 min' - (k % 420) * interval '1 s' END
               WHEN 'WAITING' THEN CASE WHEN k < 300 THEN created_at ELSE now() - (k % 30) * interval '1 s' END
               ELSE created_at + (1 + k % 20) * interval '1 s'
           END AS updated_at
    FROM (SELECT CASE WHEN k < 2300 THEN 'WAITING' WHEN k < 2700 THEN 'RUNNING' WHEN k < 12700 THEN 'FAILED'
                      ELSE 'COMPLETED' END AS status,
                 CASE WHEN k < 2700 THEN now() - (k % 600) * interval '1 s'
                      WHEN k >= :rows - 2000 THEN now() - (:rows - k) * interval '40 s'
                      ELSE now() - interval '90 days' * ((n % (:rows - 17))::float8 / (:rows - 17)) END AS created_at) c
) s
JOIN bench_team t ON t.i = n % 20
JOIN bench_user u ON u.i = n % 200;
-- The stored CSVs of the recent COMPLETED exports, one chunk each (migration V6).
INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes)
SELECT id, result_execution_id, 0, convert_to('id,title' || chr(10) || '1,t', 'UTF8')
FROM background_task WHERE result_execution_id IS NOT NULL;
ALTER TABLE background_task ENABLE TRIGGER USER;
