-- Data of the server figures (P2, P3, P4) in the bench database (BENCH_DB_NAME, default teamdesk_bench), after the server's Flyway migration.
--   users  b0..01 bench-owner (OWNER of every bench team), b0..02 bench-idle (OWNER of team idle,
--          which has no tickets: its SELF exports are 0-row CSVs, the trivial task of P2/P4),
--          50 requesters and 10 staff assignees;
--   teams  t5k, t20k, t50k with 5 000, 20 000 and 50 000 tickets (P3), idle with none (P2, P4),
--          bench-rem-1..8 with 4 OPEN tickets each assigned to staff-1 (P2r reminders, issue 33: a reminder
--          takes its team's lock, so reminders of one team serialise; 8 teams for 8 workers), from
--          bench/sql/p2r-reminder-data.sql, which the peer's database gets too (bench/sql/p2r-peer.sql).
-- Ticket bodies are ~380 characters with a comma, a quote and a line break (quoted CSV cells), so that
-- 50 000 tickets make a ~20 MB CSV like the issue's; 1 % of titles start with '=' (formula neutralised).
-- bench_claim records the claim (R7) of every task: the app's updated_at at the moment it turned RUNNING
-- (P4), written by a trigger that only exists in this benchmark database.
\set ON_ERROR_STOP 1
INSERT INTO app_user (id, username, display_name) VALUES
    ('b0000000-0000-4000-8000-000000000001', 'bench-owner', 'Bench Owner'),
    ('b0000000-0000-4000-8000-000000000002', 'bench-idle', 'Bench Idle');
INSERT INTO app_user (id, username, display_name)
SELECT ('b1000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid, 'requester-' || u, 'Requester ' || u
FROM generate_series(1, 50) u;
INSERT INTO app_user (id, username, display_name)
SELECT ('b2000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid, 'staff-' || u, 'Staff ' || u
FROM generate_series(1, 10) u;

INSERT INTO team (id, slug, name) VALUES
    ('7b000000-0000-4000-8000-000000005000', 'bench-5k', 'Bench 5k'),
    ('7b000000-0000-4000-8000-000000020000', 'bench-20k', 'Bench 20k'),
    ('7b000000-0000-4000-8000-000000050000', 'bench-50k', 'Bench 50k'),
    ('7b000000-0000-4000-8000-000000000000', 'bench-idle', 'Bench idle');
\ir p2r-reminder-data.sql

INSERT INTO membership (team_id, user_id, role)
SELECT t.id, 'b0000000-0000-4000-8000-000000000001', 'OWNER' FROM team t WHERE t.slug LIKE 'bench-%';
INSERT INTO membership (team_id, user_id, role) VALUES
    ('7b000000-0000-4000-8000-000000000000', 'b0000000-0000-4000-8000-000000000002', 'OWNER');
INSERT INTO membership (team_id, user_id, role)
SELECT t.id, u.id, CASE WHEN u.username LIKE 'staff-%' THEN 'STAFF' ELSE 'CUSTOMER' END
FROM team t CROSS JOIN app_user u
WHERE t.slug IN ('bench-5k', 'bench-20k', 'bench-50k') AND (u.username LIKE 'staff-%' OR u.username LIKE 'requester-%');

INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at, updated_at, version)
SELECT gen_random_uuid(), t.id,
       CASE WHEN n % 100 = 0 THEN '=SUM(A1:A9) looks like a formula ' || n ELSE 'Printer on floor ' || (n % 9) || ' jams, ticket ' || n END,
       'Hello team, the printer on floor ' || (n % 9) || ' jams again, "badly" this time.' || chr(10)
           || repeat('It shows error E' || (n % 97) || ', then restarts; ', 8) || 'Regards.',
       (ARRAY['OPEN', 'PENDING', 'CLOSED'])[1 + n % 3],
       (ARRAY['LOW', 'NORMAL', 'HIGH', 'URGENT'])[1 + n % 4],
       CASE WHEN n % 5 = 0 THEN NULL ELSE ('b2000000-0000-4000-8000-' || lpad((1 + n % 10)::text, 12, '0'))::uuid END,
       ('b1000000-0000-4000-8000-' || lpad((1 + n % 50)::text, 12, '0'))::uuid,
       now() - interval '400 days' + n * interval '1 minute',
       now() - interval '400 days' + n * interval '1 minute' + interval '3 hours',
       1 + n % 4
FROM (VALUES ('7b000000-0000-4000-8000-000000005000'::uuid, 5000),
             ('7b000000-0000-4000-8000-000000020000'::uuid, 20000),
             ('7b000000-0000-4000-8000-000000050000'::uuid, 50000)) AS t(id, rows)
CROSS JOIN LATERAL generate_series(1, t.rows) n;

-- P2r: staff-1, the assignee of the reminder teams' tickets (recipients ASSIGNEE: one notification per
-- reminder), is STAFF of those teams; bench-owner is their OWNER (above).
INSERT INTO membership (team_id, user_id, role)
SELECT t.id, 'b2000000-0000-4000-8000-000000000001', 'STAFF' FROM team t WHERE t.slug LIKE 'bench-rem-%';

CREATE TABLE bench_claim (task_id uuid NOT NULL, run int NOT NULL, claimed_at timestamptz NOT NULL,
                          seen_at timestamptz NOT NULL);
CREATE FUNCTION bench_claim_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO bench_claim VALUES (NEW.id, NEW.run, NEW.updated_at, clock_timestamp());
    RETURN NEW;
END $$;
CREATE TRIGGER bench_claim_trg AFTER UPDATE ON background_task FOR EACH ROW
    WHEN (NEW.status = 'RUNNING' AND OLD.status IS DISTINCT FROM 'RUNNING')
    EXECUTE FUNCTION bench_claim_record();
GRANT ALL ON bench_claim TO :"app_role"; -- bench/run passes -v app_role (BENCH_DB_NAME)
-- P8's step split of each reminder (issue 30): when its INSERT ran in PostgreSQL (reminders only, so the exports'
-- POSTs carry no extra statement).
CREATE TABLE bench_insert (task_id uuid PRIMARY KEY, inserted_at timestamptz NOT NULL);
CREATE FUNCTION bench_insert_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO bench_insert VALUES (NEW.id, clock_timestamp());
    RETURN NEW;
END $$;
CREATE TRIGGER bench_insert_trg AFTER INSERT ON background_task FOR EACH ROW
    WHEN (NEW.kind = 'REMINDER')
    EXECUTE FUNCTION bench_insert_record();
GRANT ALL ON bench_insert TO :"app_role";
ANALYZE;
