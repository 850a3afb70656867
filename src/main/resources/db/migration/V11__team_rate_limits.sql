-- Issue 30: an operator's rate limit of one team's tasks of one kind: at most per_minute of them start per
-- minute, across every instance. The queue enforces it (a rate key <team>:<kind> in Redis); this table is its
-- source, written to the queue again by every recovery sweep.
CREATE TABLE team_rate_limit (
    team_id    uuid NOT NULL REFERENCES team (id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind ~ '^[A-Z][A-Z0-9_]{0,31}$'),
    per_minute integer NOT NULL CHECK (per_minute BETWEEN 1 AND 100000),
    updated_by uuid,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (team_id, kind)
);
