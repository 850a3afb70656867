-- Issue 53 (R56, R57): what a team promises per ticket priority, the replies that keep the first promise, and each
-- ticket's clocks. A clock's version moves with every change of its due time, in the transaction of the ticket,
-- calendar or policy change that caused it (its escalations carry it as their fencing token).
CREATE TABLE sla_policy (
    team_id                 uuid NOT NULL REFERENCES team (id) ON DELETE CASCADE,
    priority                text NOT NULL CHECK (priority IN ('LOW', 'NORMAL', 'HIGH', 'URGENT')),
    first_response_minutes  integer NOT NULL CHECK (first_response_minutes BETWEEN 1 AND 525600),
    resolution_minutes      integer NOT NULL CHECK (resolution_minutes BETWEEN 1 AND 525600),
    warn_percent            integer NOT NULL CHECK (warn_percent BETWEEN 1 AND 99),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    updated_by              uuid NOT NULL REFERENCES app_user (id),
    PRIMARY KEY (team_id, priority)
);

CREATE TABLE ticket_reply (
    id          uuid PRIMARY KEY,
    ticket_id   uuid NOT NULL REFERENCES ticket (id) ON DELETE CASCADE,
    author_id   uuid NOT NULL REFERENCES app_user (id),
    from_staff  boolean NOT NULL,
    body        text NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX ticket_reply_ticket_idx ON ticket_reply (ticket_id, created_at, id);

CREATE TABLE ticket_sla_clock (
    ticket_id       uuid NOT NULL REFERENCES ticket (id) ON DELETE CASCADE,
    team_id         uuid NOT NULL REFERENCES team (id) ON DELETE CASCADE,
    metric          text NOT NULL CHECK (metric IN ('FIRST_RESPONSE', 'RESOLUTION')),
    -- CANCELLED: the promise was withdrawn (the priority lost its policy); kept so that versions are never reused
    state           text NOT NULL CHECK (state IN ('RUNNING', 'PAUSED', 'MET', 'BREACHED', 'CANCELLED')),
    target_seconds  bigint NOT NULL CHECK (target_seconds > 0),
    warn_percent    integer NOT NULL CHECK (warn_percent BETWEEN 1 AND 99),
    used_micros     bigint NOT NULL CHECK (used_micros >= 0),
    running_since   timestamptz,
    due_at          timestamptz,
    warn_at         timestamptz,
    ended_at        timestamptz,
    version         integer NOT NULL CHECK (version > 0),
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (ticket_id, metric),
    CHECK ((state = 'RUNNING') = (running_since IS NOT NULL))
);
-- the team's breach board (at risk / breached, soonest first) and, later, the escalations' sweep
CREATE INDEX ticket_sla_clock_due_idx ON ticket_sla_clock (team_id, due_at) WHERE state = 'RUNNING';
