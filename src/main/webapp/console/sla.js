// Issue 53 in the member view: a ticket's SLA (each promise's state, business time left and due instant in the team's
// zone), the team's breach board (staff and owners: running promises at risk or overdue, soonest due first) and the
// team's calendar (owners edit it, with If-Match from its ETag, and add holidays from an iCalendar file; staff read it).
import { api, apiWithTag } from './api.js';
import { h, fill, time, empty, failed, field, say, describe, stackTable, table, ZONE } from './ui.js';

const METRIC_WORDS = { FIRST_RESPONSE: 'First response', RESOLUTION: 'Resolution' };
const STATE_WORDS = { RUNNING: 'Running', PAUSED: 'Paused', MET: 'Met', BREACHED: 'Breached' };
const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const BOARD_LIMIT = 100;

/** Business minutes as "45 min", "3 h", "2 h 5 min". */
function minutes(n) {
  const a = Math.abs(n);
  const hours = Math.floor(a / 60);
  const rest = a % 60;
  if (!hours) return `${rest} min`;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

function day(d) { return d.charAt(0) + d.slice(1).toLowerCase(); }

/** "Mon 2026-12-07 09:00 (UTC+08:00)" from an ISO date-time with its offset, as the team's zone reads it. */
function local(iso) {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d:\d\d)(?::\d\d(?:\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.exec(iso || '');
  if (!m) return null;
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).getUTCDay()];
  return `${weekday} ${m[1]}-${m[2]}-${m[3]} ${m[4]} (UTC${m[5] === 'Z' ? '' : m[5]})`;
}

/** An instant in {@code zone}, as local() writes it (the browser's time zone database). */
function zoned(iso, zone) {
  try {
    const p = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
      timeZone: zone, weekday: 'short', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit',
      minute: '2-digit', hourCycle: 'h23', timeZoneName: 'longOffset',
    }).formatToParts(new Date(iso)).map(x => [x.type, x.value]));
    const offset = p.timeZoneName === 'GMT' ? '' : p.timeZoneName.replace('GMT', '');
    return `${p.weekday} ${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} (UTC${offset})`;
  } catch (e) {
    return iso;
  }
}

/** A <time> of an instant shown in the team's zone; hovering shows it in the browser's. */
function teamTime(instant, text) {
  return h('time', { datetime: instant, title: `Your time (${ZONE}): ${new Date(instant).toLocaleString()}` }, text);
}

// ---- a ticket's SLA ----------------------------------------------------------------------------

/** The "SLA" button of a ticket's row in team {@code m}: opens the ticket's SLA in #sla-box. */
export function ticketButton(m, ticket) {
  return h('button.ticket-sla', { type: 'button', 'aria-label': 'SLA of ' + ticket.title,
    onclick: () => openTicket(m, ticket) }, 'SLA');
}

function openTicket(m, ticket) {
  const box = document.getElementById('sla-box');
  if (!box) return;
  const body = h('div#ticket-sla-body', { 'aria-live': 'polite' }, h('p.muted', 'Loading the SLA…'));
  fill(box, h('section.card.inset#ticket-sla', { 'aria-labelledby': 'ticket-sla-title', 'data-ticket': ticket.id },
    h('h4#ticket-sla-title', { tabindex: '-1' }, 'SLA of “', ticket.title, '”'),
    body,
    h('div.actions',
      h('button#ticket-sla-refresh', { type: 'button', onclick: () => loadTicket(m, ticket, body) }, 'Refresh'),
      h('button#ticket-sla-close', { type: 'button', onclick: () => fill(box) }, 'Close'))));
  document.getElementById('ticket-sla-title').focus();
  loadTicket(m, ticket, body);
}

async function loadTicket(m, ticket, body) {
  try {
    const sla = await api(`/api/v1/teams/${m.teamId}/tickets/${ticket.id}/sla`);
    if (!body.isConnected) return; // closed, or another ticket opened meanwhile
    if (!sla.clocks.length) {
      fill(body, empty('No promise on this ticket: its priority has no SLA policy.'));
      return;
    }
    fill(body,
      h('p.meta', `Business time: counted in the team's working hours only. Times in ${sla.zone}, the team's zone.`
        + ' As of ', time(sla.at), '.'),
      stackTable('The ticket\'s SLA promises',
        ['Promise', 'State', ['Business time left', 'Time left'], [`Due (${sla.zone})`, 'Due'], 'Target'],
        sla.clocks.map(c => ({
          attrs: { 'data-metric': c.metric, 'data-state': c.state, 'data-overdue': String(c.overdue) },
          cells: [METRIC_WORDS[c.metric] || c.metric, stateBadge(c), left(c), due(c, sla.zone),
            `${minutes(c.targetMinutes)}, warning at ${c.warnPercent} %`],
        })), 'sla-clocks'));
  } catch (e) {
    if (body.isConnected) fill(body, failed(e, () => loadTicket(m, ticket, body)));
  }
}

function stateBadge(c) {
  return h('span.badge.sla-state', { 'data-sla': c.overdue ? 'OVERDUE' : c.state },
    (STATE_WORDS[c.state] || c.state) + (c.overdue ? ', overdue' : ''));
}

function left(c) {
  // a BREACHED promise keeps its due instant until what it waited for happens late: it is still overdue
  const late = c.state === 'BREACHED' && c.dueAt;
  if (c.state === 'MET' || (c.state === 'BREACHED' && !late)) {
    return h('span.muted', `— (used ${minutes(c.usedMinutes)})`);
  }
  if (c.leftMinutes < 0 || c.overdue || late) return h('span.bad', `overdue by ${minutes(c.leftMinutes)}`);
  return c.state === 'PAUSED' ? `${minutes(c.leftMinutes)} (paused: the ticket waits on the customer)`
    : minutes(c.leftMinutes);
}

function due(c, zone) {
  if (c.state === 'MET' || c.state === 'BREACHED') {
    return c.endedAt ? h('span', STATE_WORDS[c.state].toLowerCase(), ' ', teamTime(c.endedAt, zoned(c.endedAt, zone)))
      : h('span.muted', '—');
  }
  if (c.state === 'PAUSED') return h('span.muted', '— (not counting)');
  return c.dueAt ? teamTime(c.dueAt, local(c.dueLocal) || zoned(c.dueAt, zone))
    : h('span.muted', 'not within the next five years of the calendar');
}

// ---- the breach board -------------------------------------------------------------------------

let boardReads = 0; // board reads started; only the latest one's answer is shown

/** The team's breach board (staff and owners); its first reading starts at once. */
export function boardCard(m) {
  const el = h('section.card#sla-board-card', { 'aria-labelledby': 'sla-board-title' },
    h('h3#sla-board-title', 'SLA breach board'),
    h('p.hint', 'The team\'s promises that are breached, overdue or past their warning, soonest due first. Met and'
      + ' paused ones are not on it; a breach leaves it once it is answered or closed.'),
    h('div.actions.board-controls',
      h('label.check', h('input#sla-board-all', { type: 'checkbox', onchange: () => loadBoard(m) }),
        ' Also those on track'),
      h('button#sla-board-refresh', { type: 'button', onclick: () => loadBoard(m) }, 'Refresh')),
    h('div#sla-board', { 'aria-live': 'polite' }, h('p.muted', 'Loading the board…')));
  loadBoard(m);
  return el;
}

function risk(line) {
  return line.state === 'BREACHED' ? 'breached' : line.overdue ? 'overdue' : line.atRisk ? 'at-risk' : 'on-track';
}

// BREACHED: the breach was escalated (R59) and what the promise waited for has not happened yet
const RISK_WORDS = { breached: 'Breached', overdue: 'Overdue', 'at-risk': 'At risk', 'on-track': 'On track' };

async function loadBoard(m) {
  const mine = ++boardReads;
  try {
    const board = await api(`/api/v1/teams/${m.teamId}/sla-board?limit=${BOARD_LIMIT}`);
    const box = document.getElementById('sla-board');
    if (!box || mine !== boardReads) return; // another team, or a newer read
    const all = document.getElementById('sla-board-all').checked;
    const counts = { breached: 0, overdue: 0, 'at-risk': 0, 'on-track': 0 };
    for (const l of board.items) counts[risk(l)]++;
    const lines = board.items.filter(l => all || risk(l) !== 'on-track');
    const summary = h('p.meta#sla-board-counts', `${counts.breached} breached · ${counts.overdue} overdue · `
      + `${counts['at-risk']} at risk · `
      + `${counts['on-track']} on track`, board.items.length === BOARD_LIMIT ? ` (the ${BOARD_LIMIT} soonest due)` : '',
    ` · times in ${board.zone}, the team's zone · as of `, time(board.at));
    if (!lines.length) {
      fill(box, summary, empty(board.items.length ? 'Nothing is overdue or at risk.' : 'No promise is running.'));
      return;
    }
    fill(box, summary, stackTable('Breach board, soonest due first',
      ['Ticket', 'Promise', 'State', ['Business time left', 'Time left'], [`Due (${board.zone})`, 'Due'], ''],
      lines.map(l => ({
        attrs: { 'data-ticket': l.ticketId, 'data-metric': l.metric, 'data-risk': risk(l) },
        cells: [h('strong.board-title', l.title), `${METRIC_WORDS[l.metric] || l.metric} (${l.priority})`,
          h('span.badge.sla-risk', { 'data-sla': risk(l) }, RISK_WORDS[risk(l)]),
          l.leftMinutes < 0 || l.overdue ? h('span.bad', `overdue by ${minutes(l.leftMinutes)}`) : minutes(l.leftMinutes),
          teamTime(l.dueAt, local(l.dueLocal) || zoned(l.dueAt, board.zone)),
          h('button.board-open', { type: 'button', 'aria-label': 'SLA of ' + l.title,
            onclick: () => openTicket(m, { id: l.ticketId, title: l.title }) }, 'SLA')],
      })), 'sla-board'));
  } catch (e) {
    const box = document.getElementById('sla-board');
    if (box && mine === boardReads) fill(box, failed(e, () => loadBoard(m)));
  }
}

// ---- the team's calendar ----------------------------------------------------------------------

let cal = null; // {etag, body} of the calendar shown, null when the team has none
let calTeam = null; // the team whose calendar card is on the page
let rowIds = 0; // makes the ids of the editor's rows unique

/**
 * The team's calendar: an editor for owners, read-only for staff. It is read when first opened (a team without one
 * answers 404, which a browser logs as an error; and it changes seldom).
 */
export function calendarCard(m) {
  cal = null;
  calTeam = m.teamId;
  let read = false;
  const details = h('details#calendar-details', {
    ontoggle: () => {
      if (details.open && !read) {
        read = true;
        loadCalendar(m);
      }
    },
  }, h('summary#calendar-summary', m.role === 'OWNER' ? 'Show and edit the calendar' : 'Show the calendar'),
  h('div#calendar-body', h('p.muted', 'Loading the calendar…')));
  return h('section.card#calendar-card', { 'aria-labelledby': 'calendar-title' },
    h('h3#calendar-title', 'Working hours and holidays'),
    h('p.hint', 'The team\'s calendar: SLA promises count business time, inside these shifts and outside the holidays.'),
    details);
}

async function loadCalendar(m) {
  try {
    const r = await apiWithTag(`/api/v1/teams/${m.teamId}/calendar`);
    showCalendar(m, { etag: r.etag || `"${r.body.version}"`, body: r.body });
  } catch (e) {
    const box = document.getElementById('calendar-body');
    if (e.status === 404 && e.problem.code === 'calendar.not_found') showCalendar(m, null);
    else if (box && m.teamId === calTeam) fill(box, failed(e, () => loadCalendar(m)));
  }
}

function showCalendar(m, c) {
  const box = document.getElementById('calendar-body');
  if (!box || m.teamId !== calTeam) return; // another team was picked meanwhile
  cal = c;
  document.getElementById('calendar-card').dataset.version = c ? String(c.body.version) : '0';
  if (m.role === 'OWNER') fill(box, editor(m, c && c.body));
  else fill(box, readOnly(c && c.body));
}

function versionLine(b) {
  return h('p.meta#calendar-version', `Version ${b.version} · ${minutes(b.weeklyMinutes)} of work a week · saved `,
    time(b.updatedAt));
}

function readOnly(b) {
  if (!b) return empty('No calendar yet: every minute counts toward the team\'s promises.');
  return [versionLine(b),
    h('dl.detail', h('dt', 'Time zone'), h('dd#calendar-zone', b.zone)),
    h('h4', 'Shifts'),
    // three short columns fit a phone: plain tables
    table('Shifts', ['Day', 'From', 'To'], b.shifts.map(s => h('tr', { 'data-day': s.day },
      h('td', day(s.day)), h('td', s.start), h('td', s.end + (s.end <= s.start ? ' (next day)' : '')))), 'cal-shifts-read'),
    h('h4', 'Holidays'),
    b.holidays.length
      ? table('Holidays', ['From', 'To', 'Name'], b.holidays.map(x => h('tr',
        h('td', x.first), h('td', x.last), h('td', x.name || ''))), 'cal-holidays-read')
      : empty('No holidays.'),
    h('p.hint#calendar-readonly', 'Only the team\'s owners change the calendar.')];
}

function editor(m, b) {
  const shifts = h('ul.plain.cal-rows#cal-shifts');
  const holidays = h('ul.plain.cal-rows#cal-holidays');
  const initial = b ? b.shifts : ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']
    .map(d => ({ day: d, start: '09:00', end: '17:00' }));
  shifts.append(...initial.map(shiftRow));
  holidays.append(...(b ? b.holidays : []).map(holidayRow));
  return [
    b ? versionLine(b) : h('p.meta#calendar-version', 'No calendar yet: every minute counts. Save one to set it.'),
    h('form#calendar-form', { onsubmit: e => { e.preventDefault(); save(m); } },
      field('Time zone (IANA)', h('input#cal-zone', { type: 'text', value: b ? b.zone : ZONE, autocomplete: 'off',
        spellcheck: 'false', required: true }), 'e.g. Europe/Berlin; shifts and holidays are read in it'),
      h('fieldset.cal-group', h('legend', 'Shifts'),
        h('p.hint', 'An end not after its start runs overnight: 22:00 to 06:00 ends the next morning.'),
        shifts,
        h('button.cal-add#cal-add-shift', { type: 'button', onclick: () => add(shifts, shiftRow({ day: 'MONDAY', start: '09:00', end: '17:00' })) },
          'Add a shift')),
      h('fieldset.cal-group', h('legend', 'Holidays'),
        h('p.hint', 'Days off, first to last inclusive; their shifts do not count.'),
        holidays,
        h('button.cal-add#cal-add-holiday', { type: 'button', onclick: () => add(holidays, holidayRow({ first: '', last: '', name: '' })) },
          'Add a holiday')),
      h('div#calendar-error', { role: 'alert' }),
      h('div.actions',
        h('button#cal-save', { type: 'submit' }, 'Save calendar'),
        h('button.cal-discard#cal-discard', { type: 'button', onclick: () => loadCalendar(m) }, 'Discard changes'))),
    h('form#calendar-import', { onsubmit: e => { e.preventDefault(); importHolidays(m); } },
      field('Holidays from an iCalendar file (.ics)', h('input#cal-ics', { type: 'file', accept: '.ics,text/calendar' }),
        'Each event becomes a holiday named by its summary; the calendar must be saved first.'),
      h('div.actions', h('button#cal-import', { type: 'submit' }, 'Add the file\'s holidays')))];
}

function add(list, row) {
  list.append(row);
  row.querySelector('select, input').focus();
}

function shiftRow(s) {
  const id = 'cal-shift-' + (++rowIds);
  const row = h('li.cal-row.cal-shift', { id },
    field('Day', h('select#' + id + '-day', DAYS.map(d => h('option', { value: d, selected: d === s.day }, day(d))))),
    field('From', h('input.cal-start#' + id + '-start', { type: 'time', value: s.start, required: true })),
    field('To', h('input.cal-end#' + id + '-end', { type: 'time', value: s.end, required: true })),
    h('button.cal-remove', { type: 'button', 'aria-label': 'Remove this shift', onclick: () => row.remove() }, 'Remove'));
  return row;
}

function holidayRow(x) {
  const id = 'cal-holiday-' + (++rowIds);
  const row = h('li.cal-row.cal-holiday', { id },
    field('From', h('input.cal-first#' + id + '-first', { type: 'date', value: x.first, required: true })),
    field('To', h('input.cal-last#' + id + '-last', { type: 'date', value: x.last === x.first ? '' : x.last }),
      'empty: one day'),
    field('Name', h('input.cal-name#' + id + '-name', { type: 'text', value: x.name || '', maxlength: '200' })),
    h('button.cal-remove', { type: 'button', 'aria-label': 'Remove this holiday', onclick: () => row.remove() }, 'Remove'));
  return row;
}

/** @return the calendar the editor shows, as PUT takes it */
function edited() {
  const v = (row, cls) => row.querySelector(cls).value.trim();
  return {
    zone: document.getElementById('cal-zone').value.trim(),
    shifts: [...document.querySelectorAll('#cal-shifts .cal-shift')].map(r => ({
      day: r.querySelector('select').value, start: v(r, '.cal-start'), end: v(r, '.cal-end'),
    })),
    holidays: [...document.querySelectorAll('#cal-holidays .cal-holiday')].map(r => {
      const x = { first: v(r, '.cal-first') };
      if (v(r, '.cal-last')) x.last = v(r, '.cal-last');
      if (v(r, '.cal-name')) x.name = v(r, '.cal-name');
      return x;
    }),
  };
}

/** Shows a refusal by the form (problem+json) and in the status line. */
function refused(e) {
  const stale = e.status === 412;
  const text = (e.problem ? describe(e) : e.message)
    + (stale ? ' Someone changed the calendar meanwhile: “Discard changes” reads it again.' : '');
  const box = document.getElementById('calendar-error');
  if (box) fill(box, h('p.error', text));
  say(text, true);
}

async function save(m) {
  try {
    const r = await apiWithTag(`/api/v1/teams/${m.teamId}/calendar`, { method: 'PUT', body: edited(),
      headers: cal ? { 'If-Match': cal.etag } : {} });
    showCalendar(m, { etag: r.etag || `"${r.body.version}"`, body: r.body });
    say(`Calendar saved: version ${r.body.version}.`);
  } catch (e) {
    refused(e);
  }
}

async function importHolidays(m) {
  const file = document.getElementById('cal-ics').files[0];
  if (!file) {
    refused(new Error('Pick an iCalendar file (.ics) first.'));
    return;
  }
  try {
    const r = await apiWithTag(`/api/v1/teams/${m.teamId}/calendar/holidays`, { method: 'POST',
      body: await file.text(), contentType: 'text/calendar; charset=utf-8',
      headers: cal ? { 'If-Match': cal.etag } : {} });
    showCalendar(m, { etag: r.etag || `"${r.body.version}"`, body: r.body });
    say(`Holidays added from ${file.name}: version ${r.body.version}.`);
  } catch (e) {
    refused(e);
  }
}
