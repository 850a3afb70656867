-- Issue 17 §3: ledger retention. Finished task rows (COMPLETED, FAILED, CANCELLED) older than
-- teamdesk.retention.max-age-days are deleted in batches by the "retention" sweep (R29).

-- A deleted task keeps the notifications and system events that named it: they belong to their
-- recipient and to the team's audit log, so their task_id becomes NULL instead of blocking the delete.
ALTER TABLE notification DROP CONSTRAINT notification_task_id_fkey;
ALTER TABLE notification ADD CONSTRAINT notification_task_id_fkey
    FOREIGN KEY (task_id) REFERENCES background_task(id) ON DELETE SET NULL;
ALTER TABLE system_event DROP CONSTRAINT system_event_task_id_fkey;
ALTER TABLE system_event ADD CONSTRAINT system_event_task_id_fkey
    FOREIGN KEY (task_id) REFERENCES background_task(id) ON DELETE SET NULL;

-- ON DELETE SET NULL looks up the referencing rows of every deleted task: without these indexes each
-- deleted row would scan both tables. Partial: rows with no task are never looked up.
CREATE INDEX notification_task_idx ON notification (task_id) WHERE task_id IS NOT NULL;
CREATE INDEX system_event_task_idx ON system_event (task_id) WHERE task_id IS NOT NULL;

-- The retention sweep: finished rows by their last write. Partial, so WAITING and RUNNING rows (the
-- hot part of the ledger) are not in it; its size is bounded by the retention window itself.
CREATE INDEX background_task_finished_idx ON background_task (updated_at)
    WHERE status IN ('COMPLETED', 'FAILED', 'CANCELLED');
