-- Data of P8 (issue 30, fair share), after server-data.sql: ten flooding teams bench-flood-1..10 with 1 000
-- tickets each (team A of the pair scenario is bench-flood-1), and team bench-b with 100 OPEN tickets and three
-- staff members, whose reminders (TEAM_STAFF) are B's tasks. bench-owner owns every team.
\set ON_ERROR_STOP 1
INSERT INTO team (id, slug, name)
SELECT ('7b800000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid, 'bench-flood-' || n, 'Bench flood ' || n
FROM generate_series(1, 10) n;
INSERT INTO team (id, slug, name) VALUES ('7b900000-0000-4000-8000-000000000000', 'bench-b', 'Bench B');
INSERT INTO membership (team_id, user_id, role)
SELECT t.id, 'b0000000-0000-4000-8000-000000000001', 'OWNER' FROM team t
WHERE t.slug LIKE 'bench-flood-%' OR t.slug = 'bench-b';
INSERT INTO membership (team_id, user_id, role)
SELECT '7b900000-0000-4000-8000-000000000000', ('b2000000-0000-4000-8000-' || lpad(u::text, 12, '0'))::uuid, 'STAFF'
FROM generate_series(1, 3) u;

INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at, updated_at, version)
SELECT gen_random_uuid(), t.id, 'Printer on floor ' || (n % 9) || ' jams, ticket ' || n,
       'Hello team, the printer on floor ' || (n % 9) || ' jams again, "badly" this time.' || chr(10)
           || repeat('It shows error E' || (n % 97) || ', then restarts; ', 8) || 'Regards.',
       CASE WHEN t.slug = 'bench-b' THEN 'OPEN' ELSE (ARRAY['OPEN', 'PENDING', 'CLOSED'])[1 + n % 3] END,
       (ARRAY['LOW', 'NORMAL', 'HIGH', 'URGENT'])[1 + n % 4],
       ('b2000000-0000-4000-8000-' || lpad((1 + n % 3)::text, 12, '0'))::uuid,
       ('b1000000-0000-4000-8000-' || lpad((1 + n % 50)::text, 12, '0'))::uuid,
       now() - interval '400 days' + n * interval '1 minute',
       now() - interval '400 days' + n * interval '1 minute' + interval '3 hours', 1
FROM team t CROSS JOIN LATERAL generate_series(1, CASE WHEN t.slug = 'bench-b' THEN 100 ELSE 1000 END) n
WHERE t.slug LIKE 'bench-flood-%' OR t.slug = 'bench-b';
ANALYZE;
