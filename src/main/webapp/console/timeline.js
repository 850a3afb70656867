// A task's timeline (issue 32): its runs, newest first; in each, who started it (created, retried by whom)
// and its executions (claims) with worker, duration and outcome; a cancel where it happened.
// Built from GET /api/v1/tasks/{id}/executions and GET /api/v1/tasks/{id}/actions.
import { api } from './api.js';
import { h, fill, time, duration, failed } from './ui.js';

const OUTCOME_WORDS = {
  COMPLETED: 'completed', FAILED: 'failed', REJECTED: 'rejected', TIMED_OUT: 'timed out', CANCELLED: 'cancelled',
  STALLED: 'stalled (its server stopped writing; recovered)', TAKEN_OVER: 'taken over', DEFERRED: 'deferred',
};
const LIMIT = 100;

/** The words for who did something: "you", "an operator", or "a team member". */
function who(a, meId) {
  if (a.by === 'operator') return 'an operator';
  return a.actorId === meId ? 'you' : 'a team member';
}

/**
 * Fills `box` with the timeline of `task` (the Task JSON) as `meId` sees it; the newest 100 executions and
 * actions. Shows the failure with a "Try again" when the API cannot be reached.
 */
export async function renderTimeline(box, task, meId) {
  fill(box, h('p.muted', 'Loading the history…'));
  let executions, actions;
  try {
    [executions, actions] = await Promise.all([
      api(`/api/v1/tasks/${task.id}/executions?limit=${LIMIT}`),
      api(`/api/v1/tasks/${task.id}/actions?limit=${LIMIT}`)]);
  } catch (e) {
    fill(box, failed(e, () => renderTimeline(box, task, meId)));
    return;
  }
  const runs = new Map();
  const runOf = n => {
    if (!runs.has(n)) runs.set(n, { executions: [], actions: [] });
    return runs.get(n);
  };
  for (let n = 0; n <= task.run; n++) runOf(n);
  for (const e of executions.items) runOf(e.run).executions.push(e);
  for (const a of actions.items) if (a.run !== null) runOf(a.run).actions.push(a);
  const items = [...runs.entries()].sort((x, y) => y[0] - x[0]).map(([n, r]) => runItem(task, n, r, meId));
  fill(box, h('ol.timeline', { 'aria-label': 'History of the task, newest run first' }, items),
    executions.nextCursor ? h('p.muted', `Only the newest ${LIMIT} executions are shown.`) : null);
}

function runItem(task, n, r, meId) {
  const retried = r.actions.find(a => a.action === 'RETRIED');
  const cancelled = r.actions.filter(a => a.action === 'CANCELLED');
  const start = n === 0
    ? h('span', 'Created ', time(task.createdAt), task.scheduleId ? ' by its schedule' : '')
    : retried ? h('span', 'Retried by ', who(retried, meId), ' ', time(retried.at)) : h('span', 'Retried');
  const executions = [...r.executions].reverse(); // oldest first within a run
  return h('li.timeline-run', { 'data-run': n },
    h('div.timeline-head', h('strong', `Run ${n + 1}`), ' · ', start),
    executions.length
      ? h('ul.plain.timeline-executions', executions.map(e => executionItem(e)))
      : h('p.muted', n === task.run && task.status === 'WAITING' ? 'Not started yet.' : 'No execution.'),
    cancelled.map(a => h('p.timeline-cancel', 'Cancelled by ', who(a, meId), ' ', time(a.at),
      a.reason ? ` (${a.reason})` : '')));
}

function executionItem(e) {
  const outcome = e.outcome ? (OUTCOME_WORDS[e.outcome] || e.outcome) : 'running';
  return h('li.timeline-execution', { 'data-outcome': e.outcome || 'RUNNING' },
    h('span.badge.timeline-outcome', { 'data-outcome': e.outcome || 'RUNNING' }, `Attempt ${e.attempt}: ${outcome}`),
    ' started ', time(e.claimedAt),
    e.endedAt ? [' · took ', duration(e.durationMs)] : null,
    ` · reached ${e.progress} %`,
    e.worker ? h('span.muted', ' · on ', h('span.mono', e.worker)) : null,
    e.cause ? h('div.muted.timeline-cause', e.cause) : null);
}
