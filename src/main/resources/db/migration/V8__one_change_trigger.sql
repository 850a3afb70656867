-- Issue 16 (P2): one BEFORE ROW trigger instead of two per ledger write, and none for a write nobody can
-- see. Until now every UPDATE of background_task ran two PL/pgSQL functions: V4's BEFORE trigger taking
-- a change sequence, and V7's AFTER trigger deciding whether to notify (an AFTER ROW trigger also queues
-- an event per row that is fired at the end of the statement). A task's dispatch mark, claim and
-- completion so made six function calls. Now:
--   * an UPDATE that changes nothing a client sees (the columns V4/V7 compared: status, progress, run,
--     attempts, last_error, result_summary, expires_at; e.g. the dispatch mark, a lease-check write that
--     leaves progress as it was) fires no trigger at all (the WHEN clause is evaluated without calling
--     a function) and keeps its change_seq: event ids stay the sequence of the row's *visible* changes;
--   * a visible UPDATE takes the next change_seq and, only while some instance listens (R33), notifies,
--     in one call; an INSERT (change_seq from the column default) notifies likewise.
-- The notification is queued in the BEFORE trigger: NOTIFY is transactional, so it is sent at commit and
-- discarded if the statement or the transaction fails, as before. The payload is built from NEW, which no
-- other trigger changes afterwards. The live_interest read (and its ACCESS SHARE lock, held to the end of
-- the writing transaction: R33's registration protocol) happens for exactly the writes that read it before.
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
        'seq', NEW.change_seq)::text;
    IF octet_length(payload) > 7900 THEN
        payload := json_build_object('id', NEW.id, 'teamId', NEW.team_id, 'ownerId', NEW.owner_id,
            'seq', NEW.change_seq, 'partial', true)::text;
    END IF;
    PERFORM pg_notify('teamdesk_task:' || TG_TABLE_SCHEMA, payload);
    RETURN NEW;
END
$$;

DROP TRIGGER background_task_notify ON background_task;
DROP TRIGGER background_task_next_seq ON background_task;
DROP FUNCTION background_task_notify();
DROP FUNCTION background_task_next_seq();

CREATE TRIGGER background_task_change_insert BEFORE INSERT ON background_task
    FOR EACH ROW EXECUTE FUNCTION background_task_change();

CREATE TRIGGER background_task_change_update BEFORE UPDATE ON background_task
    FOR EACH ROW
    WHEN (NEW.status IS DISTINCT FROM OLD.status
       OR NEW.progress IS DISTINCT FROM OLD.progress
       OR NEW.run IS DISTINCT FROM OLD.run
       OR NEW.attempts IS DISTINCT FROM OLD.attempts
       OR NEW.last_error IS DISTINCT FROM OLD.last_error
       OR NEW.result_summary IS DISTINCT FROM OLD.result_summary
       OR NEW.expires_at IS DISTINCT FROM OLD.expires_at)
    EXECUTE FUNCTION background_task_change();
