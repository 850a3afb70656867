-- Issue 53, review (R57, R59): a clock remembers that its warning was sent, so that a warning whose instant passed
-- while a change was on its way is sent once (not lost, not repeated); and a kind's self-started tasks belong to a
-- group in which the newest replaces the waiting older ones (a clock's escalations of older versions), so that a
-- ticket flipped PENDING/OPEN a thousand times leaves at most its newest escalations waiting.
ALTER TABLE ticket_sla_clock ADD COLUMN warned boolean NOT NULL DEFAULT false;

ALTER TABLE background_task ADD COLUMN once_group text;
CREATE INDEX background_task_once_group_idx ON background_task (once_group) WHERE status = 'WAITING';
