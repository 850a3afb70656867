-- P2r peer (issue 33): the tables a db-scheduler reminder writes (bench.P2DbScheduler reminder), shaped like
-- ours in src/main/resources/db/migration/V1__schema.sql (same keys, foreign keys, unique constraint and
-- indexes), and the same reminder teams and tickets as our bench database (bench/sql/p2r-reminder-data.sql, also
-- included by server-data.sql): bench-rem-1..8, 4 OPEN tickets each. Applied to the peer's own database after
-- bench/sql/db-scheduler-postgresql.sql.
-- Differences from ours, on purpose: notification.task_id and system_event.task_id name db-scheduler's
-- task_instance (text), without a foreign key (db-scheduler deletes a one-time task's row when it completes;
-- ours keep theirs with ON DELETE SET NULL, V5); no membership table (the peer's handler does not check the
-- owner's role; ours reads it under the team lock).
\set ON_ERROR_STOP 1
CREATE TABLE app_user (
    id            uuid PRIMARY KEY,
    username      text NOT NULL UNIQUE,
    display_name  text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE team (
    id          uuid PRIMARY KEY,
    slug        text NOT NULL UNIQUE,
    name        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ticket (
    id            uuid PRIMARY KEY,
    team_id       uuid NOT NULL REFERENCES team(id),
    title         text NOT NULL,
    body          text NOT NULL DEFAULT '',
    status        text NOT NULL CHECK (status IN ('OPEN', 'PENDING', 'CLOSED')),
    priority      text NOT NULL DEFAULT 'NORMAL' CHECK (priority IN ('LOW', 'NORMAL', 'HIGH', 'URGENT')),
    assignee_id   uuid REFERENCES app_user(id),
    requester_id  uuid NOT NULL REFERENCES app_user(id),
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    version       integer NOT NULL DEFAULT 1
);
CREATE INDEX ticket_team_created_idx ON ticket (team_id, created_at, id);
CREATE INDEX ticket_team_assignee_idx ON ticket (team_id, assignee_id);
CREATE INDEX ticket_team_requester_idx ON ticket (team_id, requester_id);

CREATE TABLE notification (
    id            uuid PRIMARY KEY,
    team_id       uuid NOT NULL REFERENCES team(id),
    recipient_id  uuid NOT NULL REFERENCES app_user(id),
    task_id       text,
    ticket_id     uuid REFERENCES ticket(id),
    message       text NOT NULL,
    created_at    timestamptz NOT NULL,
    read_at       timestamptz,
    UNIQUE (task_id, recipient_id)
);
CREATE INDEX notification_recipient_idx ON notification (recipient_id, created_at DESC, id DESC);
CREATE INDEX notification_task_idx ON notification (task_id) WHERE task_id IS NOT NULL;

CREATE TABLE system_event (
    id          bigserial PRIMARY KEY,
    team_id     uuid REFERENCES team(id),
    kind        text NOT NULL,
    ticket_id   uuid REFERENCES ticket(id),
    actor_id    uuid REFERENCES app_user(id),
    task_id     text,
    payload     jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL
);
CREATE INDEX system_event_team_idx ON system_event (team_id, id DESC);
CREATE INDEX system_event_ticket_idx ON system_event (ticket_id, id DESC);
CREATE INDEX system_event_task_idx ON system_event (task_id) WHERE task_id IS NOT NULL;

-- data: the users the reminder data needs, then the reminder teams and tickets (as in our bench database)
INSERT INTO app_user (id, username, display_name) VALUES
    ('b0000000-0000-4000-8000-000000000001', 'bench-owner', 'Bench Owner'),
    ('b1000000-0000-4000-8000-000000000001', 'requester-1', 'Requester 1'),
    ('b2000000-0000-4000-8000-000000000001', 'staff-1', 'Staff 1');
\ir p2r-reminder-data.sql
ANALYZE;
