-- Issue 32 (P2 with tracing off within 5 % of before): the end of an execution is a HOT update.
--
-- V13's trigger closes an execution's entry by an UPDATE of ended_at, outcome, cause, progress and
-- taken_over_by. V14 put ended_at in the key and outcome in the predicate of the partial index
-- task_execution_incident, so every end was a non-HOT update: a new entry in each of the table's indexes
-- (primary key, task_execution_task, task_execution_claimed), on the same hot leaf the claims append to.
-- Measured on the bench (bench/notes/P2.md): the trigger's UPDATE was half of the completion's time.
--
-- Now no index names a column the end writes, so the end is a heap-only tuple when its page has room:
-- fillfactor 50 keeps half of each page for the ends of the executions claimed on it (claims append,
-- their ends follow within seconds, on the same page; dead versions are pruned on the page). The incident
-- view (outcomes STALLED and TAKEN_OVER, few) is served by a side table that the trigger appends to in
-- the same statement as the end, so it stays cheap however long the history.
DROP INDEX task_execution_incident;
ALTER TABLE task_execution SET (fillfactor = 50);

CREATE TABLE task_execution_incident (
    execution_id uuid PRIMARY KEY REFERENCES task_execution (execution_id) ON DELETE CASCADE,
    claimed_at   timestamptz NOT NULL,
    ended_at     timestamptz NOT NULL
);
-- The operator's incident pages: newest claim first, as the executions' pages (keyset on claimed_at, id).
CREATE INDEX task_execution_incident_claimed ON task_execution_incident (claimed_at DESC, execution_id DESC);

INSERT INTO task_execution_incident (execution_id, claimed_at, ended_at)
SELECT execution_id, claimed_at, ended_at FROM task_execution WHERE outcome IN ('STALLED', 'TAKEN_OVER');

-- V13's function, and: an end as STALLED or TAKEN_OVER also appends the incident (same statement).
CREATE OR REPLACE FUNCTION background_task_execution() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
DECLARE
    said text := current_setting('teamdesk.execution_outcome', true);
    ending text;
    claimed timestamptz;
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
         WHERE execution_id = OLD.execution_id AND ended_at IS NULL
        RETURNING claimed_at INTO claimed;
        IF FOUND AND ending IN ('STALLED', 'TAKEN_OVER') THEN
            INSERT INTO task_execution_incident (execution_id, claimed_at, ended_at)
            VALUES (OLD.execution_id, claimed, NEW.updated_at);
        END IF;
    END IF;
    IF NEW.execution_id IS NOT NULL THEN
        INSERT INTO task_execution (execution_id, task_id, run, attempt, worker, claimed_at)
        VALUES (NEW.execution_id, NEW.id, NEW.run, NEW.attempts, NEW.claimed_by, NEW.updated_at);
    END IF;
    RETURN NULL;
END
$$;
