-- Issue 13: cancel (R23), scheduled tasks (R24), Idempotency-Key (R25).

-- R23: a new terminal status CANCELLED, who cancelled it and when.
ALTER TABLE background_task DROP CONSTRAINT background_task_status_check;
ALTER TABLE background_task ADD CONSTRAINT background_task_status_check
    CHECK (status IN ('WAITING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'));
ALTER TABLE background_task
    ADD COLUMN cancelled_at timestamptz,
    ADD COLUMN cancelled_by uuid REFERENCES app_user(id);
-- R23 reconciliation: CANCELLED runs whose queue record may still exist (dispatched_at is the marker).
CREATE INDEX background_task_cancelled_idx ON background_task (cancelled_at)
    WHERE status = 'CANCELLED' AND dispatched_at IS NOT NULL;
-- R24: closing a ticket cancels its waiting reminders.
CREATE INDEX background_task_reminder_ticket_idx ON background_task ((filters->>'ticketId'))
    WHERE kind = 'REMINDER' AND status = 'WAITING';

-- R25: one row per (caller, Idempotency-Key): the request's fingerprint and the answer it got.
-- The primary key is the enforcement: the row is inserted in the same transaction as the task
-- (or the retry or cancel), so two requests with one key can never both act.
CREATE TABLE idempotency_key (
    caller_id        uuid NOT NULL,
    idem_key         text NOT NULL CHECK (length(idem_key) BETWEEN 1 AND 255),
    fingerprint      text NOT NULL,
    response_status  integer NOT NULL,
    task_id          uuid NOT NULL,
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    PRIMARY KEY (caller_id, idem_key)
);
-- The 24 h expiry sweep.
CREATE INDEX idempotency_key_expiry_idx ON idempotency_key (expires_at);
