-- Issue 51 (fix on the way): an execution's entry never ends before it was claimed.
--
-- The trigger stamps an end with the ending statement's updated_at, which the application sets from its own clock
-- (the database's time plus this instance's measured offset, ClockSync). A claim stamped by one instance and an end
-- stamped a moment later by another (a stall recovery, a takeover) can then disagree by the two offsets' difference,
-- a few milliseconds: an end before its claim, and a negative duration on the operator's pages. The end is now
-- never earlier than the claim (GREATEST), and a constraint says so for every entry written from here on (NOT VALID:
-- entries written before are not re-read).
CREATE OR REPLACE FUNCTION background_task_execution() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
DECLARE
    said text := current_setting('teamdesk.execution_outcome', true);
    ending text;
    claimed timestamptz;
    ended timestamptz;
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
        UPDATE task_execution SET ended_at = GREATEST(NEW.updated_at, claimed_at), outcome = ending,
               cause = CASE WHEN ending IN ('FAILED', 'REJECTED', 'TIMED_OUT', 'CANCELLED') THEN NEW.last_error END,
               progress = CASE WHEN NEW.execution_id IS NULL THEN NEW.progress ELSE OLD.progress END,
               taken_over_by = NEW.execution_id
         WHERE execution_id = OLD.execution_id AND ended_at IS NULL
        RETURNING claimed_at, ended_at INTO claimed, ended;
        IF FOUND AND ending IN ('STALLED', 'TAKEN_OVER') THEN
            INSERT INTO task_execution_incident (execution_id, claimed_at, ended_at)
            VALUES (OLD.execution_id, claimed, ended);
        END IF;
    END IF;
    IF NEW.execution_id IS NOT NULL THEN
        INSERT INTO task_execution (execution_id, task_id, run, attempt, worker, claimed_at)
        VALUES (NEW.execution_id, NEW.id, NEW.run, NEW.attempts, NEW.claimed_by, NEW.updated_at);
    END IF;
    RETURN NULL;
END
$$;

ALTER TABLE task_execution ADD CONSTRAINT task_execution_ends_after_its_claim
    CHECK (ended_at IS NULL OR ended_at >= claimed_at) NOT VALID;
