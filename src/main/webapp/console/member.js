// The member view: my teams, a team's tickets with the API's filters, "Export these tickets",
// reminders, the team's tasks with live progress (the team's event stream), and its schedules (issue 31); a ticket's
// SLA, the breach board and the team's calendar (issue 53).
import { api, download, kinds, openStream } from './api.js';
import { h, fill, time, empty, failed, table, field, say, describe, isoLocal, ZONE } from './ui.js';
import * as schedules from './schedules.js';
import * as batches from './batches.js';
import * as sla from './sla.js';
import { renderTimeline } from './timeline.js';

const STATUS_WORDS = {
  WAITING: 'Waiting', RUNNING: 'Running', COMPLETED: 'Completed', FAILED: 'Failed', CANCELLED: 'Cancelled',
};

let me = null;
let team = null; // {teamId, teamName, role}
// The one live stream of this page: {teamId, close, onEvent, onState}; kept while the page shows the same
// team (re-selecting it, switching views), closed on sign-out, team switch and pagehide (issue 34).
let live = null;
let tasks = new Map(); // id -> task
let ticketCursor = null;
let remindTicket = null;
let root;
let kindInfo = new Map(); // kind -> {label, fields, actions}, from GET /api/v1/kinds
// Open timelines (issue 32): task id -> {key, el}; kept across the list's re-renders, reloaded when the task's
// status or run changes (not on every progress event).
const timelines = new Map();

/** Builds the member view for the signed-in user's profile (GET /me). */
export function mount(el, profile) {
  root = el;
  me = profile;
  fill(root,
    h('div.layout',
      h('aside.card', { 'aria-labelledby': 'teams-title' },
        h('h2#teams-title', 'My teams'),
        h('div#teams')),
      h('div.content#team-content', empty('Pick a team to see its tickets and tasks.'))));
  renderTeams();
  if (me.memberships.length === 1) selectTeam(me.memberships[0]);
}

/** Stops the live stream (sign-out, view switch keeps it). */
export function unmount() {
  if (live) live.close();
  live = null;
}

// A reload or leaving the page lets go of the stream at once; a page restored from the back-forward cache
// opens it again.
window.addEventListener('pagehide', () => {
  if (live) live.close();
});
window.addEventListener('pageshow', ev => {
  if (ev.persisted && live) connect(live);
});

function renderTeams() {
  const box = document.getElementById('teams');
  if (!me.memberships.length) {
    fill(box, empty('You are not a member of any team.'));
    return;
  }
  fill(box, h('ul.plain', me.memberships.map(m => h('li',
    h('button.team', { type: 'button', id: 'team-' + m.teamId, 'aria-pressed': String(team && team.teamId === m.teamId),
      onclick: () => selectTeam(m) }, m.teamName, h('span.role', m.role))))));
}

function selectTeam(m) {
  team = m;
  renderTeams();
  if (live && live.teamId !== m.teamId) unmount();
  tasks = new Map();
  batches.reset();
  const customer = m.role === 'CUSTOMER';
  const content = document.getElementById('team-content');
  fill(content,
    h('h2#team-title', m.teamName, ' ', h('span.role', m.role)),
    h('section.card', { 'aria-labelledby': 'tickets-title' },
      h('h3#tickets-title', 'Tickets'),
      filterForm(),
      customer ? null : h('div.actions', batches.bulkRemindButton(m, filters)),
      h('div#bulk-box'),
      h('div#batch-progress', { 'aria-live': 'polite' }),
      h('div#tickets', { 'aria-live': 'polite' }),
      h('div#remind-box'),
      h('div#sla-box')),
    customer ? null : sla.boardCard(m),
    h('section.card', { 'aria-labelledby': 'export-title' },
      h('h3#export-title', 'Export these tickets'),
      exportForm(customer)),
    h('section.card', { 'aria-labelledby': 'tasks-title' },
      h('h3#tasks-title', customer ? 'My tasks' : 'Tasks of the team'),
      h('div#kind-forms'),
      h('p.hint#stream-state', 'Live updates: connecting…'),
      h('div#tasks')),
    schedules.card(m, { filters, onTask: t => upsert(t, true) }),
    customer ? null : sla.calendarCard(m));
  loadTickets(false);
  startTasks();
  kinds().then(k => {
    kindInfo = k;
    renderKindForms();
    renderTasks();
    schedules.kindsKnown(k);
  });
}

// ---- kinds the server describes (issue 29): a generic form for each kind that offers "create" ----------

function renderKindForms() {
  const box = document.getElementById('kind-forms');
  if (!box) return;
  const creatable = [...kindInfo.values()].filter(k => k.actions.includes('create'));
  fill(box, creatable.map(k => h('form.filters.kind-form#kind-form-' + k.kind,
    { onsubmit: e => { e.preventDefault(); createKind(k); } },
    k.fields.map(f => field(f.label, f.choices.length
      ? h('select#kind-' + k.kind + '-' + f.name, f.choices.map(c => h('option', { value: c }, c)))
      : h('input#kind-' + k.kind + '-' + f.name, { type: 'text' }))),
    h('div.actions', h('button#kind-' + k.kind + '-submit', { type: 'submit' }, 'Ask for: ' + k.label)))));
}

async function createKind(k) {
  const body = { kind: k.kind };
  for (const f of k.fields) {
    const v = document.getElementById('kind-' + k.kind + '-' + f.name).value;
    if (v) body[f.name] = v;
  }
  try {
    const t = await api(`/api/v1/teams/${team.teamId}/tasks`, { method: 'POST', body,
      headers: { 'Idempotency-Key': crypto.randomUUID() } });
    upsert(t, true);
    say(k.label + ': on its way.');
  } catch (e) {
    say(e.problem ? describe(e) : e.message, true);
  }
}

/** @return how a task's kind is named in its row: the server's label, with its scope where it has one */
function kindLabel(t) {
  const k = kindInfo.get(t.kind);
  const label = k ? k.label : t.kind.charAt(0) + t.kind.slice(1).toLowerCase();
  const scoped = k ? k.actions.length > 0 : t.kind === 'EXPORT';
  return scoped ? `${label} (${t.scope === 'TEAM' ? 'team' : 'my tickets'})` : label;
}

// ---- tickets ------------------------------------------------------------------------------

function filterForm() {
  const statuses = ['OPEN', 'PENDING', 'CLOSED'].map(s => h('label.check',
    h('input', { type: 'checkbox', name: 'status', value: s, id: 'f-status-' + s }), ' ' + s));
  return h('form#ticket-filters.filters', { onsubmit: e => { e.preventDefault(); loadTickets(false); } },
    h('fieldset', h('legend', 'Status'), statuses),
    field('Assignee (user id)', h('input#f-assignee', { type: 'text', autocomplete: 'off', placeholder: 'any' }),
      h('button.link', { type: 'button', onclick: () => { document.getElementById('f-assignee').value = me.id; } },
        'Assigned to me')),
    field('Text', h('input#f-q', { type: 'search', placeholder: 'title or body' })),
    field('Created from', h('input#f-from', { type: 'date' })),
    field('Created to', h('input#f-to', { type: 'date' })),
    h('div.actions', h('button#f-apply', { type: 'submit' }, 'Show tickets')));
}

function filters() {
  const status = [...document.querySelectorAll('#ticket-filters input[name=status]:checked')].map(i => i.value);
  const v = id => document.getElementById(id).value.trim();
  const f = {};
  if (status.length) f.status = status;
  if (v('f-assignee')) f.assigneeId = v('f-assignee');
  if (v('f-q')) f.q = v('f-q');
  if (v('f-from')) f.createdFrom = v('f-from');
  if (v('f-to')) f.createdTo = v('f-to');
  return f;
}

async function loadTickets(more) {
  const box = document.getElementById('tickets');
  const q = batches.ticketQuery(filters());
  q.set('limit', '100');
  if (more && ticketCursor) q.set('cursor', ticketCursor);
  if (!more) fill(box, h('p.muted', 'Loading tickets…'));
  try {
    const page = await api(`/api/v1/teams/${team.teamId}/tickets?${q}`);
    ticketCursor = page.nextCursor;
    const rows = page.items.map(t => h('tr', { 'data-ticket': t.id },
      h('td.title', t.title), h('td', t.status), h('td', t.priority),
      h('td.mono', t.assigneeId === me.id ? 'me' : (t.assigneeId ? t.assigneeId.slice(0, 8) : '—')),
      h('td', time(t.createdAt)),
      h('td.row-actions', h('button.ticket-remind', { type: 'button', 'aria-label': 'Remind about ' + t.title,
        onclick: () => openRemind(t) }, 'Remind'), ' ', sla.ticketButton(team, t))));
    if (more) {
      box.querySelector('tbody').append(...rows);
    } else if (!rows.length) {
      fill(box, empty('No tickets match these filters.'));
    } else {
      fill(box, table('Tickets', ['Title', 'Status', 'Priority', 'Assignee', 'Created', ''], rows, 'tickets'));
    }
    box.querySelector('.more')?.remove();
    if (ticketCursor) {
      box.append(h('button.more', { type: 'button', onclick: () => loadTickets(true) }, 'Load more tickets'));
    }
  } catch (e) {
    fill(box, failed(e, () => loadTickets(false)));
  }
}

// ---- when: now or at a chosen time ---------------------------------------------------------

function whenControl(prefix) {
  const at = h('input#' + prefix + '-at', { type: 'datetime-local', step: '1', disabled: true,
    'aria-label': 'Run at (your time zone, ' + ZONE + ')' });
  const onchange = () => { at.disabled = !document.getElementById(prefix + '-later').checked; };
  return h('fieldset.when', h('legend', 'When'),
    h('label.check', h('input#' + prefix + '-now', { type: 'radio', name: prefix + '-when', value: 'now', checked: true, onchange }),
      ' Now'),
    h('label.check', h('input#' + prefix + '-later', { type: 'radio', name: prefix + '-when', value: 'later', onchange }),
      ' At'),
    at, h('small.hint', 'Your time zone: ' + ZONE));
}

/** @return the chosen runAt as ISO-8601 with the browser's offset, or undefined for "now" */
function runAt(prefix) {
  if (!document.getElementById(prefix + '-later').checked) return undefined;
  const v = document.getElementById(prefix + '-at').value;
  if (!v) throw new Error('Pick the date and time to run at.');
  return isoLocal(new Date(v));
}

// ---- export --------------------------------------------------------------------------------

function exportForm(customer) {
  const scope = h('select#export-scope',
    h('option', { value: 'SELF' }, 'My tickets only (SELF)'),
    customer ? null : h('option', { value: 'TEAM' }, 'All tickets of the team (TEAM)'));
  return h('form#export-form', { onsubmit: e => { e.preventDefault(); createExport(); } },
    h('p.hint', 'Exports the tickets matching the filters above (status, assignee, dates, text) as CSV.'),
    field('Scope', scope),
    field('Time zone of the file', h('input#export-tz', { type: 'text', value: ZONE, autocomplete: 'off' })),
    whenControl('export'),
    h('div.actions', h('button#export-submit', { type: 'submit' }, 'Export these tickets')));
}

async function createExport() {
  try {
    const body = { kind: 'EXPORT', scope: document.getElementById('export-scope').value, filters: filters(),
      timeZone: document.getElementById('export-tz').value.trim() || ZONE };
    const at = runAt('export');
    if (at) body.runAt = at;
    const t = await api(`/api/v1/teams/${team.teamId}/tasks`, { method: 'POST', body,
      headers: { 'Idempotency-Key': crypto.randomUUID() } });
    upsert(t, true);
    say(at ? 'Export scheduled.' : 'Export started.');
  } catch (e) {
    say(e.problem ? describe(e) : e.message, true);
  }
}

// ---- reminders -----------------------------------------------------------------------------

function openRemind(ticket) {
  remindTicket = ticket;
  const box = document.getElementById('remind-box');
  fill(box, h('form#remind-form.card.inset', { onsubmit: e => { e.preventDefault(); createReminder(); } },
    h('h4', 'Remind about “', ticket.title, '”'),
    field('Message', h('textarea#remind-message', { rows: 2, required: true })),
    field('Who', h('select#remind-recipients',
      h('option', { value: 'ASSIGNEE' }, 'The assignee'),
      h('option', { value: 'TEAM_STAFF' }, 'The team\'s staff'))),
    whenControl('remind'),
    h('div.actions',
      h('button#remind-submit', { type: 'submit' }, 'Send reminder'),
      h('button', { type: 'button', onclick: () => fill(box) }, 'Close'))));
  document.getElementById('remind-message').focus();
}

async function createReminder() {
  try {
    const body = { kind: 'REMINDER', ticketId: remindTicket.id,
      message: document.getElementById('remind-message').value,
      recipients: document.getElementById('remind-recipients').value };
    const at = runAt('remind');
    if (at) body.runAt = at;
    const t = await api(`/api/v1/teams/${team.teamId}/tasks`, { method: 'POST', body,
      headers: { 'Idempotency-Key': crypto.randomUUID() } });
    upsert(t, true);
    fill(document.getElementById('remind-box'));
    say(at ? 'Reminder scheduled.' : 'Reminder on its way.');
  } catch (e) {
    say(e.problem ? describe(e) : e.message, true);
  }
}

// ---- tasks, live ---------------------------------------------------------------------------

function startTasks() {
  const teamId = team.teamId;
  if (!live) {
    live = { teamId, close: () => {}, state: null };
    connect(live);
  }
  showState(live.state);
  loadTasks();
}

/** Opens (or opens again) the team's stream of {@code l}; its state goes to whatever #stream-state is shown. */
function connect(l) {
  l.close = openStream(`/api/v1/teams/${l.teamId}/tasks/events`, {
    onEvent: ev => {
      if (ev.event === 'task' && team && team.teamId === l.teamId) {
        const t = JSON.parse(ev.data);
        upsert(t, true);
        batches.taskChanged(t);
      }
    },
    onState: (s, err) => {
      l.state = { s, err };
      if (live === l) showState(l.state);
    },
  });
}

function showState(state) {
  const stateEl = document.getElementById('stream-state');
  if (!stateEl || !state) return;
  const { s, err } = state;
  stateEl.textContent = s === 'open' ? 'Live updates: on.'
    : s === 'reconnecting' ? 'Live updates: reconnecting…' : 'Live updates: off. ' + (err ? describe(err) : '');
  stateEl.classList.toggle('bad', s !== 'open');
}

async function loadTasks() {
  const box = document.getElementById('tasks');
  try {
    const page = await api(`/api/v1/teams/${team.teamId}/tasks?limit=50`);
    for (const t of page.items) upsert(t, false);
    renderTasks();
  } catch (e) {
    fill(box, failed(e, loadTasks));
  }
}

/**
 * Adds or replaces a task; a listed one never overrides what the stream already said, and no answer
 * replaces a newer state (the POST's WAITING can arrive after the stream's RUNNING of the same task).
 */
function upsert(t, fresh) {
  const known = tasks.get(t.id);
  if (known && (!fresh || newer(known, t))) return;
  tasks.set(t.id, t);
  if (t.scheduleId) schedules.occurrenceChanged(t.scheduleId);
  const row = document.getElementById('task-' + t.id);
  if (row) row.replaceWith(taskRow(t));
  else renderTasks();
}

/** @returns whether a is a later state of the task than b (run first, then updatedAt to the microsecond) */
function newer(a, b) {
  if (a.run !== b.run) return a.run > b.run;
  const ta = Date.parse(a.updatedAt), tb = Date.parse(b.updatedAt);
  if (ta !== tb) return ta > tb;
  return micros(a.updatedAt) > micros(b.updatedAt);
}

/** @returns the sub-millisecond digits of an ISO-8601 instant, as a number (0 when none) */
function micros(iso) {
  const m = /\.\d{3}(\d*)/.exec(iso || '');
  return m && m[1] ? Number(m[1].padEnd(3, '0').slice(0, 3)) : 0;
}

function renderTasks() {
  const box = document.getElementById('tasks');
  if (!box) return;
  const list = [...tasks.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  if (!list.length) {
    fill(box, empty('No tasks yet. Export tickets or send a reminder to start one.'));
    return;
  }
  fill(box, h('ul.plain.tasks', list.map(taskRow)));
}

function taskRow(t) {
  const scheduled = t.status === 'WAITING' && t.runAt && new Date(t.runAt) > new Date();
  const what = kindLabel(t);
  const actions = [];
  if (t.links && t.links.result) {
    actions.push(h('button.task-download', { type: 'button', onclick: () => save(t) }, 'Download CSV'));
  }
  if (t.links && t.links.retry) {
    actions.push(h('button.task-retry', { type: 'button', onclick: () => act(t, 'retry') }, 'Retry'));
  }
  if (t.links && t.links.cancel) {
    actions.push(h('button.task-cancel', { type: 'button', onclick: () => act(t, 'cancel') }, 'Cancel'));
  }
  const open = timelines.get(t.id);
  actions.push(h('button.task-history', { type: 'button', 'aria-expanded': open ? 'true' : 'false',
    onclick: () => toggleTimeline(t) }, open ? 'Hide history' : 'History'));
  return h('li.task#task-' + t.id, { 'data-status': t.status },
    h('div.task-head',
      h('strong', what), ' ',
      h('span.badge.task-status', { 'data-status': t.status }, STATUS_WORDS[t.status] || t.status),
      scheduled ? h('span.muted', ' scheduled for ', time(t.runAt)) : null,
      t.scheduleId ? h('span.muted.task-schedule', t.slotAt ? [' · from a schedule, slot ', time(t.slotAt)]
        : ' · from a schedule, run now') : null),
    h('div.bar',
      h('progress.task-progress', { max: 100, value: t.progress, 'aria-label': what + ' progress' }),
      h('span.task-pct', `${t.progress} %`)),
    h('div.meta',
      h('span', `Run ${t.displayRun}, attempt${t.attempts === 1 ? '' : 's'}: ${t.attempts}`), ' · ',
      h('span', 'created ', time(t.createdAt)),
      t.resultSummary ? h('span', ' · ', t.resultSummary) : null),
    t.waitingReason ? h('p.task-waiting.muted', t.waitingReason,
      t.waitingUntil ? h('span', ' (', time(t.waitingUntil), ' your time)') : null) : null,
    t.lastError ? h('p.task-error', 'What happened: ', t.lastError) : null,
    actions.length ? h('div.actions', actions) : null,
    open ? timelineOf(t, open) : null);
}

function toggleTimeline(t) {
  if (timelines.has(t.id)) timelines.delete(t.id);
  else timelines.set(t.id, { key: null, el: h('div.task-timeline#timeline-' + t.id) });
  renderTasks();
}

function timelineOf(t, open) {
  const key = t.status + ' ' + t.run;
  if (open.key !== key) {
    open.key = key;
    renderTimeline(open.el, t, me.id);
  }
  return open.el;
}

async function act(t, action) {
  try {
    const next = await api(`/api/v1/tasks/${t.id}/${action}`, { method: 'POST',
      headers: { 'Idempotency-Key': crypto.randomUUID() } });
    upsert(next, true);
    say(action === 'cancel' ? 'Task cancelled.' : 'Task retried.');
  } catch (e) {
    say(describe(e), true);
  }
}

async function save(t) {
  try {
    const name = await download(`/api/v1/tasks/${t.id}/result`, `export-${t.id}.csv`);
    say('Downloaded ' + name + '.');
  } catch (e) {
    say(describe(e), true);
  }
}
