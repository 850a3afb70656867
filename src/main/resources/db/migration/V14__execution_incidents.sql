-- Issue 32 (R44): the operator's executions across teams, newest claim first (keyset on claimed_at,
-- execution_id), filtered by outcome, worker, team, kind and a time range. The member's list goes through
-- task_execution_task (V13); this one serves the cross-team pages. Executions ended by lease loss or stall
-- (the incident view) are few, so their own partial index keeps that view cheap however long the history.
CREATE INDEX task_execution_claimed ON task_execution (claimed_at DESC, execution_id DESC);
CREATE INDEX task_execution_incident ON task_execution (ended_at DESC)
    WHERE outcome IN ('STALLED', 'TAKEN_OVER');
