-- Issue 14: live progress, operator API.

-- Which queue worker claimed the current execution (R7); shown to operators with the lease age.
ALTER TABLE background_task ADD COLUMN claimed_by text;

-- Change sequence of a row: every write takes the next value (BEFORE trigger). Two writes of one row
-- are serialised by its row lock, so for one task the sequence follows commit order; it is the
-- event id of the live streams (SSE id / Last-Event-ID).
CREATE SEQUENCE background_task_change_seq;
ALTER TABLE background_task ADD COLUMN change_seq bigint NOT NULL DEFAULT nextval('background_task_change_seq');
CREATE INDEX background_task_team_change_idx ON background_task (team_id, change_seq);

CREATE FUNCTION background_task_next_seq() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.change_seq := nextval('background_task_change_seq');
    RETURN NEW;
END
$$;

CREATE TRIGGER background_task_next_seq BEFORE UPDATE ON background_task
    FOR EACH ROW EXECUTE FUNCTION background_task_next_seq();

-- Every committed change of a ledger row that a person can see (status, progress, run, attempts,
-- lastError, result) is announced with pg_notify. PostgreSQL delivers a notification only when its
-- transaction commits, in commit order, so listeners never see a rolled-back or uncommitted state.
-- The channel carries the schema ("teamdesk_task:<schema>"): servers on other schemas of the same
-- database never receive these. The payload is the row as the API shows it (never the CSV, never
-- the lease); when it would not fit pg_notify's 8000 bytes (very long filters), only the ids are
-- sent and the listener reads the row.
CREATE FUNCTION background_task_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    payload text;
BEGIN
    IF TG_OP = 'UPDATE'
       AND NEW.status IS NOT DISTINCT FROM OLD.status
       AND NEW.progress IS NOT DISTINCT FROM OLD.progress
       AND NEW.run IS NOT DISTINCT FROM OLD.run
       AND NEW.attempts IS NOT DISTINCT FROM OLD.attempts
       AND NEW.last_error IS NOT DISTINCT FROM OLD.last_error
       AND NEW.result_summary IS NOT DISTINCT FROM OLD.result_summary
       AND NEW.expires_at IS NOT DISTINCT FROM OLD.expires_at THEN
        RETURN NULL;
    END IF;
    payload := json_build_object(
        'id', NEW.id, 'kind', NEW.kind, 'teamId', NEW.team_id, 'ownerId', NEW.owner_id, 'scope', NEW.scope,
        'filters', NEW.filters, 'status', NEW.status, 'run', NEW.run, 'attempts', NEW.attempts,
        'progress', NEW.progress, 'lastError', NEW.last_error, 'resultSummary', NEW.result_summary,
        'expiresAt', extract(epoch FROM NEW.expires_at), 'runAt', extract(epoch FROM NEW.run_at),
        'createdAt', extract(epoch FROM NEW.created_at), 'updatedAt', extract(epoch FROM NEW.updated_at),
        'cancelledAt', extract(epoch FROM NEW.cancelled_at), 'cancelledBy', NEW.cancelled_by,
        'seq', NEW.change_seq)::text;
    IF octet_length(payload) > 7900 THEN
        payload := json_build_object('id', NEW.id, 'teamId', NEW.team_id, 'ownerId', NEW.owner_id,
            'seq', NEW.change_seq, 'partial', true)::text;
    END IF;
    PERFORM pg_notify('teamdesk_task:' || TG_TABLE_SCHEMA, payload);
    RETURN NULL;
END
$$;

CREATE TRIGGER background_task_notify AFTER INSERT OR UPDATE ON background_task
    FOR EACH ROW EXECUTE FUNCTION background_task_notify();

-- A paused sweep is skipped on every instance (operator API: POST /admin/timers/{name}/pause).
CREATE TABLE timer_pause (
    name       text PRIMARY KEY,
    paused_by  uuid REFERENCES app_user(id),
    paused_at  timestamptz NOT NULL
);

-- Operator actions are system events of no team.
ALTER TABLE system_event ALTER COLUMN team_id DROP NOT NULL;
CREATE INDEX system_event_system_idx ON system_event (id DESC) WHERE team_id IS NULL;

-- Operator views: every task by age, and RUNNING rows by lease age.
CREATE INDEX background_task_created_idx ON background_task (created_at DESC, id DESC);
