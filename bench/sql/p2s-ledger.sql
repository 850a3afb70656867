-- P2s (issue 33): the Node seed's schema, as bench/bullmq/p2s.js creates it in its own database (DROP/CREATE on
-- every run). The seed's ledger is one background_task row per task beside BullMQ's own record in Redis; the
-- reminder's tables are the few it writes. Kept minimal but real: primary keys, foreign keys, and the indexes a
-- seed would have (a team's task list, a team's tickets, a member's notifications, a team's events, and the
-- unfinished rows a stall sweep looks at). No triggers, no NOTIFY, no dispatch columns: the seed adds the BullMQ
-- job right after its INSERT.
DROP TABLE IF EXISTS system_event, notification, background_task, ticket, membership, team, app_user CASCADE;

CREATE TABLE app_user (
    id          uuid PRIMARY KEY,
    username    text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE team (
    id          uuid PRIMARY KEY,
    slug        text NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE membership (
    team_id  uuid NOT NULL REFERENCES team(id),
    user_id  uuid NOT NULL REFERENCES app_user(id),
    role     text NOT NULL CHECK (role IN ('OWNER', 'STAFF', 'CUSTOMER')),
    PRIMARY KEY (team_id, user_id)
);

CREATE TABLE ticket (
    id            uuid PRIMARY KEY,
    team_id       uuid NOT NULL REFERENCES team(id),
    requester_id  uuid NOT NULL REFERENCES app_user(id),
    title         text NOT NULL,
    status        text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'PENDING', 'CLOSED')),
    version       integer NOT NULL DEFAULT 1,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticket_team_created_idx ON ticket (team_id, created_at, id);

CREATE TABLE background_task (
    id              uuid PRIMARY KEY,
    kind            text NOT NULL CHECK (kind IN ('EXPORT', 'REMINDER')),
    team_id         uuid NOT NULL REFERENCES team(id),
    owner_id        uuid NOT NULL REFERENCES app_user(id),
    scope           text NOT NULL DEFAULT 'SELF' CHECK (scope IN ('SELF', 'TEAM')),
    filters         jsonb NOT NULL DEFAULT '{}'::jsonb,
    status          text NOT NULL CHECK (status IN ('WAITING', 'RUNNING', 'COMPLETED', 'FAILED')),
    run             integer NOT NULL DEFAULT 0,
    attempts        integer NOT NULL DEFAULT 0,
    progress        integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
    execution_id    uuid,
    last_error      text,
    result_csv      bytea,
    result_summary  text,
    expires_at      timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
-- A team's task list, newest first.
CREATE INDEX background_task_team_created_idx ON background_task (team_id, created_at DESC);
-- The stall sweep's (and the driver's poll's) unfinished rows.
CREATE INDEX background_task_unfinished_idx ON background_task (updated_at) WHERE status IN ('WAITING', 'RUNNING');

-- Unique per (task, recipient): a replay cannot add a second one.
CREATE TABLE notification (
    id          uuid PRIMARY KEY,
    task_id     uuid NOT NULL REFERENCES background_task(id),
    ticket_id   uuid NOT NULL REFERENCES ticket(id),
    user_id     uuid NOT NULL REFERENCES app_user(id),
    body        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (task_id, user_id)
);
CREATE INDEX notification_user_idx ON notification (user_id, created_at DESC);

CREATE TABLE system_event (
    id          bigserial PRIMARY KEY,
    team_id     uuid NOT NULL REFERENCES team(id),
    task_id     uuid REFERENCES background_task(id),
    kind        text NOT NULL,
    payload     jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX system_event_team_idx ON system_event (team_id, id DESC);
