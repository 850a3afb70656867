-- P2r (issue 33): the reminder teams and tickets, the same in our bench database (included by
-- bench/sql/server-data.sql) and in the peer's (included by bench/sql/p2r-peer.sql): teams bench-rem-1..8
-- (7b000000-0000-4000-8000-000000000301..308), each with 4 OPEN tickets assigned to staff-1 and requested by
-- requester-1; ticket k of team t is 7c000000-0000-4000-8000-0000000kkktt (k = 1..4), so tickets in id order
-- go round the teams. Needs app_user rows b1..01 (requester-1) and b2..01 (staff-1).
INSERT INTO team (id, slug, name)
SELECT ('7b000000-0000-4000-8000-' || lpad((300 + t)::text, 12, '0'))::uuid, 'bench-rem-' || t, 'Bench reminders ' || t
FROM generate_series(1, 8) t;
INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at, updated_at, version)
SELECT ('7c000000-0000-4000-8000-' || lpad((k * 100 + t)::text, 12, '0'))::uuid,
       ('7b000000-0000-4000-8000-' || lpad((300 + t)::text, 12, '0'))::uuid,
       'Reminder ticket ' || k || ' of team ' || t, 'Please follow up.', 'OPEN', 'NORMAL',
       'b2000000-0000-4000-8000-000000000001', 'b1000000-0000-4000-8000-000000000001', now(), now(), 1
FROM generate_series(1, 8) t CROSS JOIN generate_series(1, 4) k;
