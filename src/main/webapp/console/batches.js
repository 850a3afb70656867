// Batches (issue 52) in the member view: "Remind the assignees of these tickets" on the ticket list's filters,
// sent as ONE batch of reminders with a BATCH_REPORT completion, and the batch's progress bar, kept current from
// the team's live stream (each child's task event names its batch).
import { api } from './api.js';
import { h, fill, field, say, describe } from './ui.js';

/** Most tickets one bulk reminder takes (the server's batch limit). */
const MAX = 1000;

let shown = null; // {id, teamId}: the batch whose progress is on screen
let refresh = null; // the pending re-read of it
let reads = 0; // re-reads started; only the latest one's answer is shown

/** @returns the ticket list's query for filters {status[], assigneeId, q, createdFrom, createdTo} */
export function ticketQuery(f) {
  const q = new URLSearchParams();
  for (const s of f.status || []) q.append('status', s);
  for (const k of ['assigneeId', 'q', 'createdFrom', 'createdTo']) if (f[k]) q.set(k, f[k]);
  return q;
}

/** The button that opens the bulk reminder form in #bulk-box; {@code filters} reads the list's filters now. */
export function bulkRemindButton(team, filters) {
  return h('button#bulk-remind-open', { type: 'button', onclick: () => openForm(team, filters) },
    'Remind the assignees of these tickets');
}

function openForm(team, filters) {
  const box = document.getElementById('bulk-box');
  fill(box, h('form#bulk-form.card.inset', { onsubmit: e => { e.preventDefault(); send(team, filters); } },
    h('h4', 'Remind the assignees of every open ticket matching the filters'),
    h('p.hint', 'One reminder per ticket that has an assignee and is not closed, sent as one batch; when all have run,'
      + ' you get one notification saying who was reminded and what failed.'),
    field('Message', h('textarea#bulk-message', { rows: 2, required: true })),
    h('div.actions',
      h('button#bulk-submit', { type: 'submit' }, 'Remind assignees'),
      h('button', { type: 'button', onclick: () => fill(box) }, 'Close'))));
  document.getElementById('bulk-message').focus();
}

async function send(team, filters) {
  try {
    const tickets = await matching(team, filters());
    if (!tickets.length) {
      say('No open ticket with an assignee matches these filters.', true);
      return;
    }
    const message = document.getElementById('bulk-message').value;
    const body = {
      label: `Remind assignees: ${tickets.length} ticket${tickets.length === 1 ? '' : 's'}`,
      items: tickets.map(t => ({ kind: 'REMINDER', ticketId: t.id, message, recipients: 'ASSIGNEE' })),
      completion: { kind: 'BATCH_REPORT' },
    };
    const batch = await api(`/api/v1/teams/${team.teamId}/batches`, { method: 'POST', body,
      headers: { 'Idempotency-Key': crypto.randomUUID() } });
    fill(document.getElementById('bulk-box'));
    shown = { id: batch.id, teamId: team.teamId };
    show(batch);
    // the children may have run before this answer arrived: their events came while no batch was shown, so read it
    // once more now; every event from here on reads it again
    reread();
    say(`Reminding the assignees of ${tickets.length} ticket${tickets.length === 1 ? '' : 's'}.`);
  } catch (e) {
    say(e.problem ? describe(e) : e.message, true);
  }
}

/** @returns the tickets matching {@code f} that have an assignee and are not closed, at most MAX */
async function matching(team, f) {
  const out = [];
  let cursor = null;
  do {
    const q = ticketQuery(f);
    q.set('limit', '500');
    if (cursor) q.set('cursor', cursor);
    const page = await api(`/api/v1/teams/${team.teamId}/tickets?${q}`);
    for (const t of page.items) if (t.assigneeId && t.status !== 'CLOSED' && out.length < MAX) out.push(t);
    cursor = out.length < MAX ? page.nextCursor : null;
  } while (cursor);
  return out;
}

/** A task changed (the team's stream): when it is a child or the completion of the batch shown, read it again. */
export function taskChanged(t) {
  if (!shown || (t.batchId !== shown.id && t.completesBatch !== shown.id)) return;
  reread();
}

/** Reads the batch shown again, at most once per 250 ms. */
function reread() {
  if (refresh) return;
  refresh = setTimeout(async () => {
    refresh = null;
    const id = shown && shown.id;
    const mine = ++reads;
    if (!id) return;
    try {
      const b = await api(`/api/v1/batches/${id}`);
      if (mine === reads && shown && shown.id === id) show(b); // never an older answer over a newer one
    } catch (e) {
      say(describe(e), true);
    }
  }, 250);
}

/** Forgets the batch shown (another team was picked). */
export function reset() {
  shown = null;
}

function show(b) {
  const box = document.getElementById('batch-progress');
  if (!box) return;
  const c = b.counts;
  const ended = c.completed + c.failed + c.cancelled;
  const report = b.completion.kind === null ? null
    : b.completion.status === 'COMPLETED' ? 'Report sent to you.'
      : b.completion.taskId ? 'Report on its way.' : 'The report follows when every reminder has run.';
  fill(box, h('div.card.inset#batch-card', { 'data-batch': b.id, 'data-state': b.state },
    h('h4', b.label || 'Batch'),
    h('div.bar',
      h('progress#batch-bar', { max: b.size, value: ended, 'aria-label': (b.label || 'Batch') + ' progress' }),
      h('span#batch-ended', `${ended} of ${b.size}`)),
    h('p#batch-counts', `${c.completed} completed · ${c.failed} failed · ${c.cancelled} cancelled · `
      + `${c.running} running · ${c.waiting} waiting`),
    report ? h('p.muted#batch-report', report) : null,
    b.links.cancel ? h('div.actions', h('button#batch-cancel', { type: 'button', onclick: () => cancel(b) },
      'Cancel the waiting ones')) : null));
}

async function cancel(b) {
  try {
    show(await api(`/api/v1/batches/${b.id}/cancel`, { method: 'POST' }));
    say('Batch cancelled: its waiting reminders will not run.');
  } catch (e) {
    say(describe(e), true);
  }
}
