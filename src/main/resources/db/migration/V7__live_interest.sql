-- Issue 16 (P2): the ledger announces its changes (V4's pg_notify) only while some server instance has
-- live event streams open. A transaction that ran NOTIFY takes a database-wide lock at commit and holds
-- it through its WAL flush, so every claim and completion committed one after another even when nobody
-- listened (~75 % of the engine's database time in P2).
--
-- Each instance with open streams keeps one row here, renewed while they stay open (until = a short
-- lease; a crashed instance's row simply expires). The trigger reads this table: that read takes an
-- ACCESS SHARE lock held to the end of the writing transaction, and an instance registers its first
-- stream under an ACCESS EXCLUSIVE lock, so the registration waits for every transaction that decided
-- "nobody listens" to end: a change is either committed before the registration (the stream reads it
-- from the ledger when it opens) or notified.
CREATE TABLE live_interest (
    instance_id text PRIMARY KEY,
    until       timestamptz NOT NULL
);

CREATE OR REPLACE FUNCTION background_task_notify() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
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
    IF NOT EXISTS (SELECT 1 FROM live_interest WHERE until > now()) THEN
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
