// Issue 31, the member view's Schedules card: the team's recurring tasks (a customer: their own) with their next
// runs, in the schedule's time zone and in UTC, and their recent occurrences; a form for a weekly export (cron,
// time zone, kind); Pause / Resume, Run now and Delete on each.
import { api } from './api.js';
import { h, fill, time, empty, failed, field, say, describe, ZONE } from './ui.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const STATUS_WORDS = {
  WAITING: 'Waiting', RUNNING: 'Running', COMPLETED: 'Completed', FAILED: 'Failed', CANCELLED: 'Cancelled',
};

let team = null; // {teamId, teamName, role}
let ctx = null; // {filters: () => the ticket filters, onTask: task => void}
let box = null; // the list's element
let kindInfo = new Map();
const refreshes = new Map(); // schedule id -> timeout of a pending occurrences refresh

/**
 * The Schedules card of a team; its list loads at once.
 *
 * @param context filters(): the ticket filters an export schedule takes; onTask(task): a task a "run now" made
 */
export function card(m, context) {
  team = m;
  ctx = context;
  const customer = m.role === 'CUSTOMER';
  box = h('div#schedules', { 'aria-live': 'polite' });
  const el = h('section.card', { 'aria-labelledby': 'schedules-title' },
    h('h3#schedules-title', customer ? 'My schedules' : 'Schedules of the team'),
    h('p.hint', 'A schedule runs a task again and again, at the times its cron expression names in its time zone.'
      + ' An export takes the ticket filters above.'),
    form(customer),
    box);
  load();
  return el;
}

/** The kinds the server runs (GET /api/v1/kinds): those with a generic form may be scheduled too (DIGEST). */
export function kindsKnown(k) {
  kindInfo = k;
  const select = document.getElementById('sched-kind');
  if (!select) return;
  for (const info of k.values()) {
    if (info.actions.includes('create') && !select.querySelector(`option[value="${info.kind}"]`)) {
      select.append(h('option', { value: info.kind }, info.label));
    }
  }
}

/** A task of a schedule changed (the team's stream): its row's occurrences are read again, at most every 0.5 s. */
export function occurrenceChanged(scheduleId) {
  if (refreshes.has(scheduleId)) return;
  refreshes.set(scheduleId, setTimeout(() => {
    refreshes.delete(scheduleId);
    occurrences(scheduleId);
  }, 500));
}

function form(customer) {
  const scope = h('select#sched-scope',
    h('option', { value: 'SELF' }, 'My tickets only (SELF)'),
    customer ? null : h('option', { value: 'TEAM' }, 'The whole team (TEAM)'));
  return h('form#schedule-form.filters', { onsubmit: e => { e.preventDefault(); create(); } },
    field('Name', h('input#sched-name', { type: 'text', value: 'Weekly export', maxlength: '200', autocomplete: 'off' })),
    field('Task', h('select#sched-kind', h('option', { value: 'EXPORT' }, 'Export of these tickets (CSV)'))),
    field('Scope', scope),
    field('When (cron)', h('input#sched-cron', { type: 'text', value: '0 9 * * MON', autocomplete: 'off', spellcheck: 'false' }),
      'minute hour day month weekday: 0 9 * * MON is every Monday at 09:00'),
    field('Time zone', h('input#sched-zone', { type: 'text', value: ZONE, autocomplete: 'off', spellcheck: 'false' })),
    h('div.actions', h('button#sched-submit', { type: 'submit' }, 'Create schedule')));
}

async function create() {
  const value = id => document.getElementById(id).value.trim();
  const zone = value('sched-zone') || ZONE;
  const task = { kind: value('sched-kind'), scope: value('sched-scope') };
  if (task.kind === 'EXPORT') {
    task.filters = ctx.filters();
    task.timeZone = zone;
  }
  const body = { name: value('sched-name') || undefined, cron: value('sched-cron'), timeZone: zone, task };
  try {
    const s = await api(`/api/v1/teams/${team.teamId}/schedules`, { method: 'POST', body,
      headers: { 'Idempotency-Key': crypto.randomUUID() } });
    say(`Schedule “${s.name}” created` + (s.nextRuns.length ? `; first run ${local(s.nextRuns[0].at)}.` : '.'));
    await load();
  } catch (e) {
    say(e.problem ? describe(e) : e.message, true);
  }
}

async function load() {
  const teamId = team.teamId;
  const list = box;
  try {
    const page = await api(`/api/v1/teams/${teamId}/schedules?limit=50`);
    if (list !== box) return; // another team was picked meanwhile
    if (!page.items.length) {
      fill(list, empty('No schedules yet. Create one above, e.g. a weekly export.'));
      return;
    }
    fill(list, h('ul.plain.schedules', page.items.map(row)));
    for (const s of page.items) occurrences(s.id);
  } catch (e) {
    if (list === box) fill(list, failed(e, load));
  }
}

function kindLabel(task) {
  const k = kindInfo.get(task.kind);
  const label = k ? k.label : task.kind.charAt(0) + task.kind.slice(1).toLowerCase();
  return `${label} (${task.scope === 'TEAM' ? 'team' : 'my tickets'})`;
}

/** "Mon 2026-12-07 09:00 (UTC+08:00)" from an ISO date-time with its offset, as the schedule's zone reads it. */
function local(iso) {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d:\d\d)(?::\d\d(?:\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.exec(iso || '');
  if (!m) return iso;
  const weekday = WEEKDAYS[new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).getUTCDay()];
  return `${weekday} ${m[1]}-${m[2]}-${m[3]} ${m[4]} (UTC${m[5] === 'Z' ? '' : m[5]})`;
}

function row(s) {
  const next = s.nextRuns.length
    ? h('ol.schedule-next', s.nextRuns.map(r => h('li',
      h('time', { datetime: r.utc, title: r.at }, local(r.at)),
      h('span.muted', ` · ${r.utc.slice(0, 10)} ${r.utc.slice(11, 16)} UTC`))))
    : h('p.muted.schedule-next-none', 'No next run: the schedule is paused.');
  return h('li.schedule#schedule-' + s.id, { 'data-enabled': String(s.enabled) },
    h('div.task-head',
      h('strong.schedule-name', s.name), ' ',
      h('span.badge.schedule-state', { 'data-status': s.enabled ? 'COMPLETED' : 'CANCELLED' }, s.enabled ? 'Active' : 'Paused'),
      h('span.muted', ' ', kindLabel(s.task))),
    h('div.meta', h('code.schedule-cron', s.cron), ' in ', h('span.schedule-zone', s.timeZone),
      s.lastSlotAt ? h('span', ' · last slot ', time(s.lastSlotAt)) : null),
    s.disabledReason ? h('p.task-error.schedule-reason', 'Stopped: ', s.disabledReason) : null,
    h('div.schedule-runs', h('span.muted', 'Next runs, in ', s.timeZone, ' and UTC:'), next),
    h('div.schedule-occurrences', h('span.muted', 'Recent runs: loading…')),
    h('div.actions',
      s.enabled
        ? h('button.schedule-pause', { type: 'button', onclick: () => act(s, 'pause') }, 'Pause')
        : h('button.schedule-resume', { type: 'button', onclick: () => act(s, 'resume') }, 'Resume'),
      h('button.schedule-run', { type: 'button', onclick: () => runNow(s) }, 'Run now'),
      h('button.schedule-delete', { type: 'button', onclick: () => remove(s) }, 'Delete')));
}

/** Reads a schedule (GET /schedules/{id}) and shows its last occurrences in its row. */
async function occurrences(id) {
  try {
    const s = await api(`/api/v1/schedules/${id}`);
    const el = document.querySelector(`#schedule-${id} .schedule-occurrences`);
    if (!el) return;
    const recent = s.occurrences.slice(0, 5);
    fill(el, recent.length
      ? [h('span.muted', 'Recent runs:'), h('ul.plain.schedule-recent', recent.map(o => h('li.schedule-occurrence',
        { 'data-status': o.status || 'SKIPPED' },
        o.slotAt ? h('span', 'slot ', time(o.slotAt)) : h('span', 'run now, ', time(o.at)), ' ',
        o.taskId
          ? h('span.badge', { 'data-status': o.status }, STATUS_WORDS[o.status] || o.status)
          : h('span.muted', `skipped (${o.skipped === 'OVERLAP' ? 'the previous run was not done' : 'missed'}): ${o.detail}`))))]
      : h('span.muted', 'Recent runs: none yet.'));
  } catch (e) {
    const el = document.querySelector(`#schedule-${id} .schedule-occurrences`);
    if (el && e.status !== 404) fill(el, failed(e, () => occurrences(id)));
  }
}

async function act(s, action) {
  try {
    const next = await api(`/api/v1/schedules/${s.id}/${action}`, { method: 'POST' });
    document.getElementById('schedule-' + s.id)?.replaceWith(row(next));
    occurrences(s.id);
    say(`Schedule “${next.name}” ${action === 'pause' ? 'paused' : 'resumed'}.`);
  } catch (e) {
    say(describe(e), true);
  }
}

async function runNow(s) {
  try {
    const t = await api(`/api/v1/schedules/${s.id}/run-now`, { method: 'POST' });
    ctx.onTask(t);
    occurrences(s.id);
    say(`Schedule “${s.name}”: running now, besides its next runs.`);
  } catch (e) {
    say(describe(e), true);
  }
}

async function remove(s) {
  if (!window.confirm(`Delete the schedule “${s.name}”? The tasks it ran stay.`)) return;
  clearTimeout(refreshes.get(s.id)); // a row that goes has nothing to read again
  refreshes.delete(s.id);
  try {
    await api(`/api/v1/schedules/${s.id}`, { method: 'DELETE' });
    say(`Schedule “${s.name}” deleted.`);
    load();
  } catch (e) {
    say(describe(e), true);
  }
}
