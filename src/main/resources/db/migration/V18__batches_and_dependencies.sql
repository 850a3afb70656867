-- Issue 52 (R51-R54): batches with a completion that runs exactly once, and tasks that wait for others.
--
-- One mechanism for both: a run that reaches a final state (COMPLETED, FAILED, CANCELLED) settles what waits for
-- it, in the statement that ended it, by one AFTER ROW trigger on background_task. The statement that ends a run is
-- the ledger's lease-checked transition (R8, R14): when the lease is lost it matches no row, no trigger fires, and
-- nothing moves; when its transaction rolls back (a kill -9, a failed commit), the counts roll back with it. So the
-- batch's count moves exactly once per child's end, in the child's own transaction, and the statement that ends
-- the last child creates the completion task in that commit: no sweep, listener or client decides "done".
--
-- Concurrency: the batch's row is updated (and so locked until commit) by every transaction that ends one of its
-- children; two children ending at once on two servers queue on that row lock, and the second reads the first's
-- committed counts (READ COMMITTED re-reads the row it waited for). The completion is inserted only by the
-- transition that moves finished_at from NULL, so at most once; and when all children are final one of them did.
--
-- Lock order: a child's row, then its batch's row (the trigger). Code that locks a batch and then its waiting
-- children (cancelling a batch, a member cancelling a child) takes the batch's row first (BatchLedger).
--
-- The WHEN clause keeps the trigger away from every task outside a batch with no dependents: they fire nothing.

CREATE TABLE task_batch (
    id                        uuid PRIMARY KEY,
    team_id                   uuid NOT NULL REFERENCES team (id),
    owner_id                  uuid NOT NULL REFERENCES app_user (id),
    label                     text,
    size                      integer NOT NULL CHECK (size > 0),
    completed                 integer NOT NULL DEFAULT 0,
    failed                    integer NOT NULL DEFAULT 0,
    cancelled                 integer NOT NULL DEFAULT 0,
    on_child_failure          text NOT NULL CHECK (on_child_failure IN ('CONTINUE', 'CANCEL_REST')),
    completion_kind           text CHECK (completion_kind ~ '^[A-Z][A-Z0-9_]{0,31}$'),
    completion_scope          text CHECK (completion_scope IN ('SELF', 'TEAM')),
    completion_params         jsonb,
    completion_when_cancelled boolean NOT NULL DEFAULT false,
    -- set in the same statement as finished_at, by the transition that ended the last child; no foreign key:
    -- retention (R29) may delete the completion task before its batch
    completion_task_id        uuid,
    finished_at               timestamptz,
    cancelled_at              timestamptz,
    cancelled_by              uuid,
    created_at                timestamptz NOT NULL,
    updated_at                timestamptz NOT NULL,
    CHECK (completed >= 0 AND failed >= 0 AND cancelled >= 0 AND completed + failed + cancelled <= size),
    CHECK ((completion_kind IS NULL) = (completion_scope IS NULL)),
    CHECK (completion_task_id IS NULL OR finished_at IS NOT NULL)
);
CREATE INDEX task_batch_team_idx ON task_batch (team_id, created_at DESC, id DESC);
-- the operator's overview: batches not finished
CREATE INDEX task_batch_open_idx ON task_batch (created_at) WHERE finished_at IS NULL;

ALTER TABLE background_task
    ADD COLUMN batch_id uuid REFERENCES task_batch (id),
    ADD COLUMN completes_batch uuid REFERENCES task_batch (id),
    -- prerequisites (R53) that have not yet settled; the dispatch sweep hands only 0 to the queue
    ADD COLUMN waits_for integer NOT NULL DEFAULT 0 CHECK (waits_for >= 0),
    -- R53: run even when a prerequisite failed or was cancelled (else: cancelled with that cause)
    ADD COLUMN run_anyway boolean NOT NULL DEFAULT false,
    -- some task waits for this one (set, under this row's lock, by the transaction that creates the dependent)
    ADD COLUMN has_dependents boolean NOT NULL DEFAULT false;

CREATE INDEX background_task_batch_idx ON background_task (batch_id, created_at, id) WHERE batch_id IS NOT NULL;
CREATE INDEX background_task_completes_idx ON background_task (completes_batch) WHERE completes_batch IS NOT NULL;
-- the operator's overview: runs that wait for others (R53)
CREATE INDEX background_task_waiting_for_idx ON background_task (run_at) WHERE status = 'WAITING' AND waits_for > 0;

-- R18's sweep hands over only runs that wait for nothing.
DROP INDEX background_task_dispatch_idx;
CREATE INDEX background_task_dispatch_idx ON background_task (run_at)
    WHERE status = 'WAITING' AND dispatched_at IS NULL AND waits_for = 0;

CREATE TABLE task_dependency (
    task_id         uuid NOT NULL REFERENCES background_task (id) ON DELETE CASCADE,
    prerequisite_id uuid NOT NULL REFERENCES background_task (id) ON DELETE CASCADE,
    -- the prerequisite reached a final state once and its dependent was released or cancelled for it
    settled         boolean NOT NULL DEFAULT false,
    PRIMARY KEY (prerequisite_id, task_id),
    CHECK (task_id <> prerequisite_id)
);
CREATE INDEX task_dependency_task_idx ON task_dependency (task_id);

-- Ends a batch whose children are all final: stamps finished_at once and, unless the batch says otherwise, inserts
-- its completion task (WAITING, run 0, not dispatched: the dispatch sweep or the worker that ended the child hands
-- it to the queue after this commit, R18). Called only from background_task_settle, under the batch's row lock.
CREATE OR REPLACE FUNCTION task_batch_finish(batch uuid, at timestamptz) RETURNS void LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
DECLARE
    b task_batch%ROWTYPE;
BEGIN
    UPDATE task_batch SET finished_at = at,
           completion_task_id = CASE WHEN completion_kind IS NOT NULL
                                      AND (cancelled_at IS NULL OR completion_when_cancelled)
                                     THEN gen_random_uuid() END
     WHERE id = batch AND finished_at IS NULL AND completed + failed + cancelled = size
    RETURNING * INTO b;
    IF FOUND AND b.completion_task_id IS NOT NULL THEN
        INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts, progress,
                                     run_at, created_at, updated_at, completes_batch)
        VALUES (b.completion_task_id, b.completion_kind, b.team_id, b.owner_id, b.completion_scope,
                coalesce(b.completion_params, '{}'::jsonb), 'WAITING', 0, 0, 0, at, at, at, b.id);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION background_task_settle() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
DECLARE
    was_final boolean := OLD.status IN ('COMPLETED', 'FAILED', 'CANCELLED');
    is_final boolean := NEW.status IN ('COMPLETED', 'FAILED', 'CANCELLED');
    policy text;
    whole boolean;
    waiting uuid[];
BEGIN
    IF was_final = is_final THEN
        RETURN NULL;
    END IF;
    IF NEW.batch_id IS NOT NULL THEN
        -- R52: the count moves with the child's end (+1) or its manual retry (-1: the batch is open again)
        UPDATE task_batch SET
               completed = completed + CASE WHEN is_final AND NEW.status = 'COMPLETED' THEN 1
                                            WHEN was_final AND OLD.status = 'COMPLETED' THEN -1 ELSE 0 END,
               failed    = failed    + CASE WHEN is_final AND NEW.status = 'FAILED' THEN 1
                                            WHEN was_final AND OLD.status = 'FAILED' THEN -1 ELSE 0 END,
               cancelled = cancelled + CASE WHEN is_final AND NEW.status = 'CANCELLED' THEN 1
                                            WHEN was_final AND OLD.status = 'CANCELLED' THEN -1 ELSE 0 END,
               updated_at = greatest(updated_at, NEW.updated_at)
         WHERE id = NEW.batch_id
        RETURNING on_child_failure, completed + failed + cancelled = size INTO policy, whole;
        IF is_final AND NEW.status = 'FAILED' AND policy = 'CANCEL_REST' THEN
            -- each cancelled sibling fires this trigger in turn (its count, its own dependents)
            UPDATE background_task SET status = 'CANCELLED', cancelled_at = NEW.updated_at, updated_at = NEW.updated_at,
                   last_error = 'Cancelled: task ' || NEW.id || ' of its batch failed (onChildFailure CANCEL_REST).'
             WHERE batch_id = NEW.batch_id AND status = 'WAITING';
        END IF;
        -- only the end that made the count whole tries to finish (a cancelled sibling's own end did, in its turn)
        IF is_final AND whole THEN
            PERFORM task_batch_finish(NEW.batch_id, NEW.updated_at);
        END IF;
    END IF;
    IF NEW.has_dependents AND is_final THEN
        -- R53: each dependent settles once per prerequisite; a later retry of the prerequisite re-blocks nothing
        WITH s AS (UPDATE task_dependency SET settled = true
                    WHERE prerequisite_id = NEW.id AND NOT settled RETURNING task_id)
        SELECT array_agg(task_id) INTO waiting FROM s;
        IF waiting IS NOT NULL THEN
            UPDATE background_task SET waits_for = waits_for - 1
             WHERE id = ANY (waiting) AND status = 'WAITING' AND (NEW.status = 'COMPLETED' OR run_anyway);
            IF NEW.status <> 'COMPLETED' THEN
                UPDATE background_task SET status = 'CANCELLED', cancelled_at = NEW.updated_at,
                       updated_at = NEW.updated_at,
                       last_error = 'Cancelled: it waits for task ' || NEW.id || ', which ended ' || NEW.status || '.'
                 WHERE id = ANY (waiting) AND status = 'WAITING' AND NOT run_anyway;
            END IF;
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER background_task_settle AFTER UPDATE ON background_task
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND (NEW.batch_id IS NOT NULL OR NEW.has_dependents))
    EXECUTE FUNCTION background_task_settle();

-- The live payload (V12's) names the batch and what the task waits for, so that a batch's progress is followed on
-- the team's stream (R54). A release (waits_for down) changes nothing a client sees and fires nothing (V8).
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
        'batchId', NEW.batch_id, 'completesBatch', NEW.completes_batch, 'waitsFor', NEW.waits_for,
        'runAnyway', NEW.run_anyway,
        'seq', NEW.change_seq)::text;
    IF octet_length(payload) > 7900 THEN
        payload := json_build_object('id', NEW.id, 'teamId', NEW.team_id, 'ownerId', NEW.owner_id,
            'seq', NEW.change_seq, 'partial', true)::text;
    END IF;
    PERFORM pg_notify('teamdesk_task:' || TG_TABLE_SCHEMA, payload);
    RETURN NEW;
END
$$;
