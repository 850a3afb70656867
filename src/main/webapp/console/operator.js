// The operator view (/api/v1/admin): overview, running runs, workers, queue, timers with
// pause/resume/run-now, teams' waiting and running tasks with their caps (issue 30), every team's schedules with
// the due-but-not-materialised ones and a pause (issue 31), failed tasks with bulk retry, a task's detail. The
// admin API has no
// stream, so the figures are refreshed every 2 s while the view is shown. Executions and incidents (issue 32) load on
// demand.
import { api, kinds } from './api.js';
import { h, fill, time, duration, empty, failed, table, field, say, describe } from './ui.js';

const REFRESH_MS = 2000;
let timer = null;
let root;

/** Builds the operator view and starts refreshing it. */
export function mount(el) {
  root = el;
  fill(root,
    h('p.hint', 'Figures refresh every 2 seconds. ', h('span#ops-updated')),
    h('div.grid',
      h('section.card', { 'aria-labelledby': 'ops-overview-title' }, h('h2#ops-overview-title', 'Overview'), h('div#ops-overview')),
      h('section.card', { 'aria-labelledby': 'ops-queue-title' }, h('h2#ops-queue-title', 'Queue (Redis)'), h('div#ops-queue'))),
    h('section.card', { 'aria-labelledby': 'ops-timers-title' }, h('h2#ops-timers-title', 'Timers'), h('div#ops-timers')),
    h('section.card', { 'aria-labelledby': 'ops-running-title' }, h('h2#ops-running-title', 'Running runs'), h('div#ops-running')),
    h('section.card', { 'aria-labelledby': 'ops-workers-title' }, h('h2#ops-workers-title', 'Workers'), h('div#ops-workers')),
    h('section.card', { 'aria-labelledby': 'ops-teams-title' }, h('h2#ops-teams-title', 'Teams: waiting, running, cap'),
      h('p.hint', 'Teams take turns for the workers. A cap limits how many of one team\'s tasks run at once on all instances;'
        + ' a rate limit how many of one kind start per minute.'),
      h('form#ops-cap.filters', { onsubmit: e => { e.preventDefault(); setCap(false); } },
        field('Team id', h('input#ops-cap-team', { type: 'text', autocomplete: 'off', required: true })),
        field('Most running at once', h('input#ops-cap-max', { type: 'number', min: '1', max: '1000', step: '1' })),
        h('div.actions', h('button#ops-cap-set', { type: 'submit' }, 'Set cap'),
          h('button#ops-cap-clear', { type: 'button', onclick: () => setCap(true) }, 'Clear cap'))),
      h('form#ops-rate.filters', { onsubmit: e => { e.preventDefault(); setRate(false); } },
        field('Kind', h('select#ops-rate-kind')),
        field('Most starting per minute', h('input#ops-rate-max', { type: 'number', min: '1', max: '100000', step: '1' })),
        h('div.actions', h('button#ops-rate-set', { type: 'submit' }, 'Set rate limit'),
          h('button#ops-rate-clear', { type: 'button', onclick: () => setRate(true) }, 'Clear rate limit'))),
      h('div#ops-teams')),
    h('section.card', { 'aria-labelledby': 'ops-schedules-title' }, h('h2#ops-schedules-title', 'Schedules'),
      h('p.hint', 'Every team\'s recurring tasks. Due, not materialised: the next slot has passed and no sweep has made'
        + ' its task yet (the dispatch timer is paused or behind).'),
      h('div.filters', h('label.check', h('input#ops-sched-due', { type: 'checkbox', onchange: refresh }),
        ' Only due, not materialised')),
      h('div#ops-schedules')),
    h('section.card', { 'aria-labelledby': 'ops-failed-title' }, h('h2#ops-failed-title', 'Failed tasks'),
      h('form#ops-bulk.filters', { onsubmit: e => { e.preventDefault(); bulkRetry(); } },
        field('Kind', h('select#ops-bulk-kind', h('option', { value: '' }, 'any'))),
        field('Older than', h('input#ops-bulk-older', { type: 'text', placeholder: 'e.g. PT10M' })),
        h('div.actions', h('button#ops-bulk-retry', { type: 'submit' }, 'Retry failed tasks (up to 100)'))),
      h('div#ops-failed')),
    h('section.card', { 'aria-labelledby': 'ops-incidents-title' }, h('h2#ops-incidents-title', 'Executions and incidents'),
      h('p.hint', 'Every execution (claim) on the record, across teams. Stalled: its server stopped writing and the'
        + ' recovery sweep took its lease. Taken over: another execution of the same run claimed it. Not refreshed'
        + ' every 2 s: press Show.'),
      h('form#ops-incidents-form.filters', { onsubmit: e => { e.preventDefault(); showIncidents(); } },
        field('Ran in the last', h('select#ops-inc-range',
          [['PT1H', 'hour'], ['PT24H', '24 hours'], ['P7D', '7 days']].map(([v, t]) => h('option', { value: v }, t)))),
        field('Outcome', h('select#ops-inc-outcome',
          [['STALLED,TAKEN_OVER', 'stalled or taken over'], ['FAILED,REJECTED,TIMED_OUT', 'failed, rejected, timed out'],
            ['CANCELLED', 'cancelled'], ['COMPLETED', 'completed'], ['RUNNING', 'still running'], ['', 'any']]
            .map(([v, t]) => h('option', { value: v }, t)))),
        field('Worker', h('input#ops-inc-worker', { type: 'text', autocomplete: 'off', placeholder: 'any' })),
        h('div.actions', h('button#ops-inc-show', { type: 'submit' }, 'Show'))),
      h('div#ops-incidents')),
    h('section.card', { 'aria-labelledby': 'ops-detail-title' }, h('h2#ops-detail-title', 'Task detail'),
      h('form#ops-detail-form.filters', { onsubmit: e => { e.preventDefault(); showTask(); } },
        field('Task id', h('input#ops-task-id', { type: 'text', autocomplete: 'off', required: true })),
        h('div.actions', h('button#ops-task-show', { type: 'submit' }, 'Show task'))),
      h('div#ops-detail')));
  kinds().then(k => {
    const select = document.getElementById('ops-bulk-kind');
    if (select) select.append(...[...k.keys()].map(name => h('option', name)));
    const rate = document.getElementById('ops-rate-kind');
    if (rate) rate.append(...[...k.keys()].map(name => h('option', { value: name }, name)));
  });
  refresh();
  clearInterval(timer);
  timer = setInterval(refresh, REFRESH_MS);
}

/** Stops refreshing. */
export function unmount() {
  clearInterval(timer);
  timer = null;
}

function taskLink(id) {
  return h('button.link.mono', { type: 'button', title: id, onclick: () => { document.getElementById('ops-task-id').value = id; showTask(); } },
    id.slice(0, 8));
}

async function section(id, path, render) {
  const box = document.getElementById(id);
  if (!box) return;
  try {
    const data = await api(path);
    if (box.isConnected) render(box, data);
  } catch (e) {
    if (box.isConnected) fill(box, failed(e, refresh));
  }
}

async function refresh() {
  const dueOnly = !!document.getElementById('ops-sched-due')?.checked;
  await Promise.all([
    section('ops-overview', '/api/v1/admin/overview', renderOverview),
    section('ops-timers', '/api/v1/admin/timers', renderTimers),
    section('ops-workers', '/api/v1/admin/workers?limit=100', renderWorkers),
    section('ops-teams', '/api/v1/admin/limits', renderTeams),
    section('ops-schedules', '/api/v1/admin/schedules?limit=100' + (dueOnly ? '&due=true' : ''),
      (box, page) => renderSchedules(box, page, dueOnly)),
    section('ops-failed', '/api/v1/admin/tasks?status=FAILED&limit=50', renderFailed),
  ]);
  const u = document.getElementById('ops-updated');
  if (u) fill(u, 'Updated ', time(new Date().toISOString()), '.');
  const id = document.getElementById('ops-task-id');
  if (id && id.value && document.getElementById('ops-detail').childElementCount) showTask(true);
}

function renderOverview(box, o) {
  const kinds = [...new Set(o.counts.map(c => c.kind))];
  const statuses = [...new Set(o.counts.map(c => c.status))];
  const count = (s, k) => (o.counts.find(c => c.status === s && c.kind === k) || { count: 0 }).count;
  fill(box,
    h('dl.figures',
      h('dt', 'Oldest waiting'), h('dd#ops-oldest', duration(o.oldestWaitingAgeMs)),
      h('dt', 'Due but not dispatched'), h('dd#ops-due', String(o.dueUndispatched)),
      h('dt', 'Waiting for other tasks'), h('dd#ops-waiting-for-others', String(o.waitingForOthers)),
      h('dt', 'Open batches'), h('dd#ops-open-batches', String(o.openBatches)),
      h('dt', 'Running'), h('dd#ops-running-count', String(o.running.length))),
    table('Tasks by status and kind', ['Status', ...kinds],
      statuses.map(s => h('tr', h('th', { scope: 'row' }, s), kinds.map(k => h('td.num', String(count(s, k))))))));
  const q = o.queue;
  fill(document.getElementById('ops-queue'), q
    ? h('dl.figures#ops-queue-figures', ['waiting', 'delayed', 'active', 'completed', 'failed'].flatMap(k =>
      [h('dt', k), h('dd', { 'data-state': k }, String(q[k]))]))
    : empty('No queue figures.'));
  const running = document.getElementById('ops-running');
  fill(running, o.running.length
    ? table('Running runs', ['Task', 'Kind', 'Run', 'Attempt', 'Progress', 'Worker', 'Last write', 'Lease age'],
      o.running.map(r => h('tr', h('td', taskLink(r.id)), h('td', r.kind), h('td.num', String(r.run + 1)),
        h('td.num', String(r.attempt)), h('td.num', `${r.progress} %`), h('td.mono', r.claimedBy || '—'),
        h('td', time(r.updatedAt)), h('td', { class: r.leaseAgeMs > 60000 ? 'warn' : '' }, duration(r.leaseAgeMs)))))
    : empty('Nothing is running.'));
}

// Issue 28: the instance's clock against PostgreSQL's (the ledger uses PostgreSQL's; over 1 s is worth a look).
function clockOffset(ms) {
  if (ms === null || ms === undefined) return '';
  const off = Math.abs(ms) > 1000;
  return h('span.clock-offset' + (off ? '.warn' : ''), { title: 'PostgreSQL minus this instance' },
    ` · clock ${ms >= 0 ? '+' : '−'}${Math.abs(ms)} ms`);
}

function renderTimers(box, page) {
  const rows = [];
  for (const inst of page.items) {
    for (const t of inst.timers) {
      rows.push(h('tr#timer-' + t.name + (inst.thisInstance ? '' : '-' + inst.instance), { 'data-paused': String(t.paused) },
        h('th', { scope: 'row' }, t.name), h('td.mono', inst.instance + (inst.thisInstance ? ' (this)' : ''), clockOffset(inst.clockOffsetMs)),
        h('td.timer-state', t.paused ? h('span.badge', { 'data-status': 'CANCELLED' }, 'Paused') : h('span.badge', { 'data-status': 'COMPLETED' }, 'Active')),
        h('td', t.schedule || '—'), h('td', time(t.nextTimeout)), h('td', time(t.lastEnd || t.lastStart)),
        h('td', t.lastOutcome || '—'), h('td.num', `${t.runs} / ${t.failures}`),
        h('td.actions',
          t.paused
            ? h('button.timer-resume', { type: 'button', onclick: () => timerAction(t.name, 'resume') }, 'Resume')
            : h('button.timer-pause', { type: 'button', onclick: () => timerAction(t.name, 'pause') }, 'Pause'),
          h('button.timer-run', { type: 'button', onclick: () => timerAction(t.name, 'run') }, 'Run now'))));
    }
  }
  fill(box, rows.length
    ? table('Timers', ['Timer', 'Instance', 'State', 'Schedule', 'Next run', 'Last run', 'Outcome', 'Runs / failures', ''], rows)
    : empty('No instance has reported its timers.'));
}

async function timerAction(name, action) {
  try {
    await api(`/api/v1/admin/timers/${name}/${action}`, { method: 'POST' });
    say(`Timer ${name}: ${action === 'run' ? 'ran once' : action + 'd'}.`);
    refresh();
  } catch (e) {
    say(describe(e), true);
  }
}

function renderWorkers(box, page) {
  fill(box, page.items.length
    ? table('Workers', ['Worker', 'Host', 'State', 'Started', 'Busy / concurrency', 'Last heartbeat'],
      page.items.map(w => h('tr', h('td.mono', w.id), h('td.mono', w.host), h('td', h('span.badge', { 'data-status': w.state === 'live' ? 'COMPLETED' : 'FAILED' }, w.state)),
        h('td', time(w.startedAt)), h('td.num', `${w.busy} / ${w.concurrency}`), h('td', time(w.lastBeat)))))
    : empty('No worker has been seen in the last day.'));
}

// Issue 30: each team with a cap, or with tasks waiting or running, and how many of its tasks a limit holds back
// now (every waiting one at its cap, those over a rate limit until the minute ends); a click fills the cap form.
function renderTeams(box, page) {
  fill(box, page.items.length
    ? table('Teams', ['Team', 'Waiting', 'Running', 'Limited', 'Cap', 'Per minute', 'State'],
      page.items.map(t => h('tr#team-limit-' + t.teamId, { 'data-cap': t.maxRunning === null ? '' : String(t.maxRunning) },
        h('td', h('button.link', { type: 'button', title: t.teamId, onclick: () => { document.getElementById('ops-cap-team').value = t.teamId; } },
          t.team || t.teamId.slice(0, 8))),
        h('td.num', String(t.waiting)), h('td.num', String(t.running)),
        h('td.num.team-limited', { title: 'held back by the cap or a rate limit now' }, String(t.limited)),
        h('td.num.team-cap', t.maxRunning === null ? '—' : String(t.maxRunning)),
        h('td.team-rates', Object.keys(t.perMinute || {}).length
          ? Object.entries(t.perMinute).map(([kind, n]) => `${kind} ${n}`).join(', ') : '—'),
        h('td', t.atCap ? h('span.badge', { 'data-status': 'WAITING' }, 'At its cap') : '—'))))
    : empty('No team has tasks waiting or running, and none has a cap.'));
}

async function setCap(clear) {
  const team = document.getElementById('ops-cap-team').value.trim();
  const max = document.getElementById('ops-cap-max').value.trim();
  if (!team) return;
  if (!clear && max === '') {
    say('Give the most tasks of the team running at once, 1-1000, or clear the cap.', true);
    return;
  }
  try {
    const t = await api(`/api/v1/admin/teams/${encodeURIComponent(team)}/limits`,
      { method: 'PUT', body: { maxRunning: clear ? null : Number(max) } });
    say(t.maxRunning === null ? `Team ${t.team || team}: no cap.` : `Team ${t.team || team}: at most ${t.maxRunning} running at once.`);
    refresh();
  } catch (e) {
    say(describe(e), true);
  }
}

async function setRate(clear) {
  const team = document.getElementById('ops-cap-team').value.trim();
  const kind = document.getElementById('ops-rate-kind').value;
  const max = document.getElementById('ops-rate-max').value.trim();
  if (!team || !kind) return;
  if (!clear && max === '') {
    say('Give the most tasks of the kind starting per minute, 1-100000, or clear the rate limit.', true);
    return;
  }
  try {
    const t = await api(`/api/v1/admin/teams/${encodeURIComponent(team)}/limits/${encodeURIComponent(kind)}`,
      { method: 'PUT', body: { perMinute: clear ? null : Number(max) } });
    say(clear ? `Team ${t.team || team}: no rate limit for ${kind}.` : `Team ${t.team || team}: at most ${max} ${kind} per minute.`);
    refresh();
  } catch (e) {
    say(describe(e), true);
  }
}

// Issue 31: schedules across teams; a due one's next slot is in the past (nothing has materialised it yet).
function renderSchedules(box, page, dueOnly) {
  if (!!document.getElementById('ops-sched-due')?.checked !== dueOnly) return; // asked before the filter changed
  const now = Date.now();
  fill(box, page.items.length
    ? table('Schedules', ['Schedule', 'Team', 'Task', 'When', 'Next slot', 'State', ''],
      page.items.map(s => {
        const next = s.nextRuns.length ? s.nextRuns[0].utc : null;
        const late = next !== null && Date.parse(next) <= now;
        return h('tr#ops-schedule-' + s.id, { 'data-enabled': String(s.enabled), 'data-due': String(late) },
          h('td', s.name), h('td.mono', { title: s.teamId }, s.teamId.slice(0, 8)), h('td', `${s.task.kind} (${s.task.scope})`),
          h('td', h('code', s.cron), ' ', s.timeZone),
          h('td', { class: late ? 'warn' : '' }, next ? time(next) : '—', late ? ' (due)' : ''),
          h('td.ops-schedule-state', s.enabled ? h('span.badge', { 'data-status': 'COMPLETED' }, 'Active')
            : h('span.badge', { 'data-status': 'CANCELLED', title: s.disabledReason || '' }, 'Paused')),
          h('td.actions', s.enabled
            ? h('button.ops-schedule-pause', { type: 'button', onclick: () => pauseSchedule(s) }, 'Pause')
            : (s.disabledReason || '')));
      }))
    : empty(dueOnly ? 'No schedule is due and waiting for the sweep.' : 'No team has a schedule.'));
}

async function pauseSchedule(s) {
  try {
    await api(`/api/v1/admin/schedules/${s.id}/pause`, { method: 'POST' });
    say(`Schedule “${s.name}” paused (audited).`);
    refresh();
  } catch (e) {
    say(describe(e), true);
  }
}

function renderFailed(box, page) {
  fill(box, page.items.length
    ? table('Failed tasks', ['Task', 'Kind', 'Team', 'Run', 'What happened', 'Updated'],
      page.items.map(t => h('tr', h('td', taskLink(t.id)), h('td', t.kind), h('td.mono', t.teamId.slice(0, 8)),
        h('td.num', String(t.displayRun ?? t.run + 1)), h('td', t.lastError || '—'), h('td', time(t.updatedAt)))))
    : empty('No failed tasks.'));
}

async function bulkRetry() {
  const body = { limit: 100 };
  const kind = document.getElementById('ops-bulk-kind').value;
  const older = document.getElementById('ops-bulk-older').value.trim();
  if (kind) body.kind = kind;
  if (older) body.olderThan = older;
  try {
    const r = await api('/api/v1/admin/tasks/retry', { method: 'POST', body });
    say(`Retried ${r.retried.length}, skipped ${r.skipped.length}.`);
    refresh();
  } catch (e) {
    say(describe(e), true);
  }
}

// Issue 32 (R44): executions across teams in a time range, counted by outcome, then the matching ones.
async function showIncidents() {
  const box = document.getElementById('ops-incidents');
  const q = new URLSearchParams({ from: document.getElementById('ops-inc-range').value });
  const outcome = document.getElementById('ops-inc-outcome').value;
  const worker = document.getElementById('ops-inc-worker').value.trim();
  if (worker) q.set('worker', worker);
  const filtered = new URLSearchParams(q);
  if (outcome) filtered.set('outcome', outcome);
  filtered.set('limit', '100');
  try {
    const [summary, page] = await Promise.all([api('/api/v1/admin/executions/summary?' + q),
      api('/api/v1/admin/executions?' + filtered)]);
    fill(box,
      summary.counts.length
        ? h('dl.figures#ops-inc-counts', summary.counts.flatMap(c =>
          [h('dt', c.outcome.toLowerCase().replace('_', ' ')), h('dd', { 'data-outcome': c.outcome },
            `${c.count} on ${c.workers} worker${c.workers === 1 ? '' : 's'}`)]))
        : empty('No execution ran in this range.'),
      page.items.length
        ? table('Executions', ['Task', 'Kind', 'Batch', 'Run', 'Attempt', 'Worker', 'Started', 'Took', 'Outcome', 'Taken over by'],
          page.items.map(e => h('tr.ops-inc-row', { 'data-outcome': e.outcome || 'RUNNING' },
            h('td', taskLink(e.taskId)), h('td', e.kind), h('td.mono', e.batchId ? e.batchId.slice(0, 8) : '—'),
            h('td.num', String(e.run + 1)), h('td.num', String(e.attempt)),
            h('td.mono', e.worker || '—'), h('td', time(e.claimedAt)), h('td', duration(e.durationMs)),
            h('td', e.outcome || 'running', e.cause ? h('div.muted', e.cause) : null),
            h('td.mono', e.takenOverBy ? e.takenOverBy.slice(0, 8) : '—'))))
        : empty('No execution matches.'),
      page.nextCursor ? h('p.muted', 'The newest 100 are shown; narrow the range or the worker.') : null);
  } catch (e) {
    fill(box, failed(e, showIncidents));
    say(describe(e), true);
  }
}

async function showTask(quiet) {
  const id = document.getElementById('ops-task-id').value.trim();
  const box = document.getElementById('ops-detail');
  if (!id) return;
  try {
    const t = await api(`/api/v1/admin/tasks/${encodeURIComponent(id)}`);
    const rows = Object.entries(t).filter(([k]) => k !== 'filters').flatMap(([k, v]) => [h('dt', k),
      h('dd', { 'data-field': k }, typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? time(v) : v === null ? '—' : String(v))]);
    fill(box, h('dl.detail#ops-task', rows), h('p', 'Filters: ', h('code', JSON.stringify(t.filters))));
  } catch (e) {
    if (!quiet) fill(box, failed(e, () => showTask()));
  }
}
