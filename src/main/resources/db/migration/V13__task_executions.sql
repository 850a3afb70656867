-- Issue 32 (R43): every execution of a task on the record. An execution starts and ends exactly when
-- background_task.execution_id (the lease, R7/R8) changes: a claim NULL -> A, an end A -> NULL, a takeover
-- A -> B. So the history is written by the database itself, in the same statement as the claim or the end,
-- by one AFTER ROW trigger whose WHEN clause compares only execution_id: every other write of the ledger
-- (progress, dispatch marks, retries and cancels of waiting runs) fires nothing, as V8 keeps it.
--
-- Fenced: an entry is closed only while it is open (ended_at IS NULL) and only by the statement that
-- changed the lease away from its execution id; an execution that lost its lease writes nothing (R8), so a
-- stale execution cannot rewrite its own entry, nor anyone else's.
--
-- Outcome: the trigger derives it from the transition (COMPLETED, FAILED, CANCELLED, TAKEN_OVER, ...).
-- A statement that knows better (the sweep's stall recovery: STALLED; a rejection: REJECTED; a run
-- timeout: TIMED_OUT) says so with (SELECT task_execution_outcome(text)) in its own WHERE clause (an
-- InitPlan, so evaluated once per statement, not per row scanned): the value is stamped with
-- statement_timestamp(), so only triggers fired by that very statement read it, never a later statement of
-- the same transaction.
CREATE TABLE task_execution (
    execution_id   uuid PRIMARY KEY,
    task_id        uuid NOT NULL REFERENCES background_task (id) ON DELETE CASCADE,
    run            integer NOT NULL,
    attempt        integer NOT NULL,
    worker         text,
    claimed_at     timestamptz NOT NULL,
    ended_at       timestamptz,
    outcome        text CHECK (outcome IN ('COMPLETED', 'FAILED', 'REJECTED', 'TIMED_OUT', 'CANCELLED', 'STALLED',
                                           'TAKEN_OVER', 'DEFERRED')),
    cause          text,
    progress       integer NOT NULL DEFAULT 0,
    taken_over_by  uuid,
    CHECK ((ended_at IS NULL) = (outcome IS NULL))
);

-- The member API's keyset (newest first) and R29's cascade both go through the task.
CREATE INDEX task_execution_task ON task_execution (task_id, claimed_at DESC, execution_id DESC);

-- Says what ends the executions of the calling statement; true, so that it can stand in a WHERE clause.
CREATE OR REPLACE FUNCTION task_execution_outcome(outcome text) RETURNS boolean LANGUAGE sql VOLATILE
    AS $$ SELECT set_config('teamdesk.execution_outcome', outcome || '@' || statement_timestamp()::text, true)
       IS NOT NULL $$;

CREATE OR REPLACE FUNCTION background_task_execution() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
DECLARE
    said text := current_setting('teamdesk.execution_outcome', true);
    ending text;
BEGIN
    IF OLD.execution_id IS NOT NULL THEN
        IF NEW.execution_id IS NOT NULL THEN
            ending := 'TAKEN_OVER';
        ELSIF said IS NOT NULL AND said LIKE '%@' || statement_timestamp()::text THEN
            ending := split_part(said, '@', 1);
        ELSE
            ending := CASE NEW.status WHEN 'COMPLETED' THEN 'COMPLETED' WHEN 'CANCELLED' THEN 'CANCELLED'
                       WHEN 'FAILED' THEN 'FAILED' ELSE 'DEFERRED' END;
        END IF;
        UPDATE task_execution SET ended_at = NEW.updated_at, outcome = ending,
               cause = CASE WHEN ending IN ('FAILED', 'REJECTED', 'TIMED_OUT', 'CANCELLED') THEN NEW.last_error END,
               progress = CASE WHEN NEW.execution_id IS NULL THEN NEW.progress ELSE OLD.progress END,
               taken_over_by = NEW.execution_id
         WHERE execution_id = OLD.execution_id AND ended_at IS NULL;
    END IF;
    IF NEW.execution_id IS NOT NULL THEN
        INSERT INTO task_execution (execution_id, task_id, run, attempt, worker, claimed_at)
        VALUES (NEW.execution_id, NEW.id, NEW.run, NEW.attempts, NEW.claimed_by, NEW.updated_at);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER background_task_execution AFTER UPDATE ON background_task
    FOR EACH ROW WHEN (OLD.execution_id IS DISTINCT FROM NEW.execution_id)
    EXECUTE FUNCTION background_task_execution();

-- A run RUNNING at migration time gets its open entry, so that its end is recorded too.
INSERT INTO task_execution (execution_id, task_id, run, attempt, worker, claimed_at, progress)
SELECT execution_id, id, run, attempts, claimed_by, updated_at, progress FROM background_task
 WHERE execution_id IS NOT NULL;
