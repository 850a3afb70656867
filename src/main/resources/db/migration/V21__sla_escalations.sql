-- Issue 53 (R59): an SLA escalation is an ordinary task created by the clock's change, once per (ticket, metric,
-- threshold, clock version): the kind names that identity in once_key, unique, so that a replayed change, two
-- instances or a retried transaction make one task.
ALTER TABLE background_task ADD COLUMN once_key text;
CREATE UNIQUE INDEX background_task_once_key_idx ON background_task (once_key) WHERE once_key IS NOT NULL;

-- The breach board lists RUNNING promises and BREACHED ones not yet kept late (due_at kept until the reply or the
-- close that settles them), soonest first: one index for both.
DROP INDEX ticket_sla_clock_due_idx;
CREATE INDEX ticket_sla_clock_due_idx ON ticket_sla_clock (team_id, due_at)
    WHERE state IN ('RUNNING', 'BREACHED') AND due_at IS NOT NULL;
