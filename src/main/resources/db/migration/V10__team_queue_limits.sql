-- Issue 30: an operator's cap of one team's tasks running at once, across every instance. The queue enforces it
-- (a group's cap in Redis); this table is its source, applied again by every recovery sweep, so a Redis that
-- lost its data gets the caps back within one tick.
CREATE TABLE team_queue_limit (
    team_id     uuid PRIMARY KEY REFERENCES team (id) ON DELETE CASCADE,
    max_running integer NOT NULL CHECK (max_running BETWEEN 1 AND 1000),
    updated_by  uuid,
    updated_at  timestamptz NOT NULL
);
