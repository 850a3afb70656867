-- Issue 31 (R41): recurring tasks. A schedule belongs to a team and an owner like a task; its kind's validated
-- parameters are stored as a task's are (background_task.filters). The dispatch sweep materialises each due
-- slot as an ordinary task whose identity (schedule_id, slot_at) is unique, in the same transaction that
-- advances next_slot_at; a slot it decides not to run (overlap, missed) is recorded in schedule_skip.
CREATE TABLE task_schedule (
    id              uuid PRIMARY KEY,
    team_id         uuid NOT NULL REFERENCES team (id),
    owner_id        uuid NOT NULL REFERENCES app_user (id),
    name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    kind            text NOT NULL,
    scope           text NOT NULL CHECK (scope IN ('SELF', 'TEAM')),
    params          jsonb NOT NULL,
    cron            text NOT NULL CHECK (length(cron) BETWEEN 1 AND 200),
    time_zone       text NOT NULL CHECK (length(time_zone) BETWEEN 1 AND 64),
    missed_slots    text NOT NULL CHECK (missed_slots IN ('RUN_ONCE', 'SKIP')),
    overlap         text NOT NULL CHECK (overlap IN ('SKIP', 'QUEUE')),
    enabled         boolean NOT NULL,
    -- the next slot to materialise; NULL while disabled (resume computes it from then on)
    next_slot_at    timestamptz,
    last_slot_at    timestamptz,
    disabled_reason text,
    version         integer NOT NULL DEFAULT 1,
    created_by      uuid NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_by      uuid NOT NULL,
    updated_at      timestamptz NOT NULL,
    CHECK (enabled = (next_slot_at IS NOT NULL))
);
-- The dispatch sweep's due scan (enabled schedules by next slot).
CREATE INDEX task_schedule_due_idx ON task_schedule (next_slot_at) WHERE enabled;
-- A team's schedules in creation order (keyset pages), and the per-team count.
CREATE INDEX task_schedule_team_idx ON task_schedule (team_id, created_at, id);

-- An occurrence of a schedule: slot_at is its slot (NULL for a "run now"), unique per schedule.
ALTER TABLE background_task ADD COLUMN schedule_id uuid REFERENCES task_schedule (id) ON DELETE SET NULL,
                            ADD COLUMN slot_at timestamptz;
CREATE UNIQUE INDEX background_task_schedule_slot_idx ON background_task (schedule_id, slot_at)
    WHERE slot_at IS NOT NULL;
CREATE INDEX background_task_schedule_idx ON background_task (schedule_id, created_at DESC)
    WHERE schedule_id IS NOT NULL;

-- A slot the sweep did not run: OVERLAP (the previous occurrence still WAITING or RUNNING, overlap SKIP) or
-- MISSED (the slots that passed while no sweep ran: all of them with missed_slots SKIP, all but the latest
-- with RUN_ONCE; one row for the run of them, at its first slot, with how many in detail).
CREATE TABLE schedule_skip (
    schedule_id  uuid NOT NULL REFERENCES task_schedule (id) ON DELETE CASCADE,
    slot_at      timestamptz NOT NULL,
    reason       text NOT NULL CHECK (reason IN ('OVERLAP', 'MISSED')),
    detail       text NOT NULL,
    recorded_at  timestamptz NOT NULL,
    PRIMARY KEY (schedule_id, slot_at)
);

-- The live change payload (V8) gains the occurrence's schedule and slot; otherwise unchanged.
CREATE OR REPLACE FUNCTION background_task_change() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
DECLARE
    payload text;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        NEW.change_seq := nextval('background_task_change_seq');
    END IF;
    IF NOT EXISTS (SELECT 1 FROM live_interest WHERE until > now()) THEN
        RETURN NEW;
    END IF;
    payload := json_build_object(
        'id', NEW.id, 'kind', NEW.kind, 'teamId', NEW.team_id, 'ownerId', NEW.owner_id, 'scope', NEW.scope,
        'filters', NEW.filters, 'status', NEW.status, 'run', NEW.run, 'attempts', NEW.attempts,
        'progress', NEW.progress, 'lastError', NEW.last_error, 'resultSummary', NEW.result_summary,
        'expiresAt', extract(epoch FROM NEW.expires_at), 'runAt', extract(epoch FROM NEW.run_at),
        'createdAt', extract(epoch FROM NEW.created_at), 'updatedAt', extract(epoch FROM NEW.updated_at),
        'cancelledAt', extract(epoch FROM NEW.cancelled_at), 'cancelledBy', NEW.cancelled_by,
        'scheduleId', NEW.schedule_id, 'slotAt', extract(epoch FROM NEW.slot_at),
        'seq', NEW.change_seq)::text;
    IF octet_length(payload) > 7900 THEN
        payload := json_build_object('id', NEW.id, 'teamId', NEW.team_id, 'ownerId', NEW.owner_id,
            'seq', NEW.change_seq, 'partial', true)::text;
    END IF;
    PERFORM pg_notify('teamdesk_task:' || TG_TABLE_SCHEMA, payload);
    RETURN NEW;
END
$$;
