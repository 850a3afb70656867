// DOM helpers shared by the views: element builder, times in the browser's zone, list states.

/** h('tag.class#id', {attr: v, onclick: fn}, ...children): an element; text children are text nodes. */
export function h(spec, attrs, ...children) {
  const [, tag, rest] = /^([a-z0-9]+)(.*)$/i.exec(spec);
  const el = document.createElement(tag);
  for (const part of rest.match(/[.#][^.#]+/g) || []) {
    if (part[0] === '.') el.classList.add(part.slice(1));
    else el.id = part.slice(1);
  }
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else if (k in el && k !== 'list' && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

function pad(n) { return String(n).padStart(2, '0'); }

/** ISO-8601 of the instant in the browser's zone, with its offset, e.g. 2026-01-02T17:00:00+08:00. */
export function isoLocal(d) {
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const a = Math.abs(off);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:`
    + `${pad(d.getSeconds())}${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

export const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** A <time> in the browser's zone; hovering shows the full time with its offset and zone. */
export function time(iso) {
  if (!iso) return h('span.muted', '—');
  const d = new Date(iso);
  return h('time', { datetime: iso, title: `${isoLocal(d)} (${ZONE})` },
    d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }));
}

/** A duration in ms as "3 s", "4 min 5 s", "2 h 3 min". */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** What went wrong, for a person: the API's problem detail, or a network failure. */
export function describe(err) {
  if (err && err.problem) {
    const p = err.problem;
    return `${p.title || 'Error'} (${err.status}${p.code ? ', ' + p.code : ''}): ${p.detail || ''}`.trim();
  }
  return 'The server could not be reached: ' + (err && err.message ? err.message : err);
}

/** The empty state of a list. */
export function empty(text) { return h('p.empty', { role: 'note' }, text); }

/** The error state of a list, with a "Try again" button. */
export function failed(err, retry) {
  return h('div.error', { role: 'alert' }, h('span', describe(err)), ' ',
    retry ? h('button', { type: 'button', onclick: retry }, 'Try again') : null);
}

/** A table with a caption, a header row and rows (arrays of cells), scrollable on a phone. */
export function table(caption, head, rows, cls) {
  return h('div.table-wrap', h('table' + (cls ? '.' + cls : ''),
    h('caption.sr-only', caption),
    h('thead', h('tr', head.map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', rows)));
}

/**
 * A table that stacks on a phone instead of scrolling sideways: each row becomes a block and each cell is led by its
 * column's name (data-label, shown by style.css). The explicit roles keep it a table for assistive technology when
 * the style makes its parts blocks. A column's name is a string, or [name, shorter name for a phone's cells]. Rows
 * are {attrs, cells}: the row's attributes and one child per column.
 */
export function stackTable(caption, head, rows, cls) {
  const full = head.map(c => (Array.isArray(c) ? c[0] : c));
  const short = head.map(c => (Array.isArray(c) ? c[1] : c));
  return h('table.stack' + (cls ? '.' + cls : ''), { role: 'table' },
    h('caption.sr-only', caption),
    h('thead', { role: 'rowgroup' }, h('tr', { role: 'row' },
      full.map(c => h('th', { scope: 'col', role: 'columnheader' }, c)))),
    h('tbody', { role: 'rowgroup' }, rows.map(r => h('tr', { role: 'row', ...r.attrs },
      r.cells.map((c, i) => h('td', { role: 'cell', 'data-label': short[i] }, c))))));
}

/** A labelled form field: h('label') + control, wrapped. */
export function field(label, control, hint) {
  const id = control.id;
  return h('div.field', h('label', { for: id }, label), control, hint ? h('small.hint', hint) : null);
}

let statusTimer;
/** Announces a short message in the status line (polite live region). */
export function say(text, isError) {
  const el = document.getElementById('status');
  el.textContent = text;
  el.classList.toggle('bad', !!isError);
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => { el.textContent = ''; }, 8000);
}
