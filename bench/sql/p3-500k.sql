-- P3L (issue 33): team bench-500k with 500 000 tickets (10x P3's 50k), loaded only by `bench/run P3L` after
-- server-data.sql; same ticket shapes as server-data.sql (quoted cells, 1 % formula titles), ~200 MB of CSV.
\set ON_ERROR_STOP 1
INSERT INTO team (id, slug, name) VALUES ('7b000000-0000-4000-8000-000000500000', 'bench-500k', 'Bench 500k');
INSERT INTO membership (team_id, user_id, role) VALUES
    ('7b000000-0000-4000-8000-000000500000', 'b0000000-0000-4000-8000-000000000001', 'OWNER');
INSERT INTO membership (team_id, user_id, role)
SELECT '7b000000-0000-4000-8000-000000500000', u.id, CASE WHEN u.username LIKE 'staff-%' THEN 'STAFF' ELSE 'CUSTOMER' END
FROM app_user u WHERE u.username LIKE 'staff-%' OR u.username LIKE 'requester-%';
INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at, updated_at, version)
SELECT gen_random_uuid(), '7b000000-0000-4000-8000-000000500000',
       CASE WHEN n % 100 = 0 THEN '=SUM(A1:A9) looks like a formula ' || n ELSE 'Printer on floor ' || (n % 9) || ' jams, ticket ' || n END,
       'Hello team, the printer on floor ' || (n % 9) || ' jams again, "badly" this time.' || chr(10)
           || repeat('It shows error E' || (n % 97) || ', then restarts; ', 8) || 'Regards.',
       (ARRAY['OPEN', 'PENDING', 'CLOSED'])[1 + n % 3],
       (ARRAY['LOW', 'NORMAL', 'HIGH', 'URGENT'])[1 + n % 4],
       CASE WHEN n % 5 = 0 THEN NULL ELSE ('b2000000-0000-4000-8000-' || lpad((1 + n % 10)::text, 12, '0'))::uuid END,
       ('b1000000-0000-4000-8000-' || lpad((1 + n % 50)::text, 12, '0'))::uuid,
       now() - interval '4000 days' + n * interval '1 minute',
       now() - interval '4000 days' + n * interval '1 minute' + interval '3 hours',
       1 + n % 4
FROM generate_series(1, 500000) n;
VACUUM (ANALYZE) ticket;
