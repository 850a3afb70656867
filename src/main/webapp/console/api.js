// The API client: the bearer token lives in sessionStorage only, every request sends it in the
// Authorization header (never in a URL), problem+json answers become ApiError.
const KEY = 'teamdesk.token';

export function token() { return sessionStorage.getItem(KEY); }
export function setToken(t) { sessionStorage.setItem(KEY, t); }
export function clearToken() { sessionStorage.removeItem(KEY); }

/** The token's claims (for display and choosing views only: the server decides what is allowed). */
export function claims() {
  const t = token();
  if (!t) return null;
  try {
    const part = t.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = new TextDecoder().decode(Uint8Array.from(atob(part), c => c.charCodeAt(0)));
    return JSON.parse(json);
  } catch (e) {
    return null;
  }
}

export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem && (problem.detail || problem.title) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.retryAfter = retryAfter; // seconds, from Retry-After, or null
  }
}

async function problemOf(res) {
  try {
    return await res.json();
  } catch (e) {
    return { title: res.statusText };
  }
}

function headers(extra) {
  const h = { Accept: 'application/json', ...extra };
  const t = token();
  if (t) h.Authorization = 'Bearer ' + t;
  return h;
}

/** fetch a JSON answer; throws ApiError on a non-2xx answer. */
export async function api(path, options) {
  return (await apiWithTag(path, options)).body;
}

/**
 * fetch a JSON answer with its ETag: {body, etag} (etag null when the answer has none). A body is sent as JSON,
 * or as it is with {@code contentType} (e.g. an iCalendar file as text/calendar). Throws ApiError on a non-2xx answer.
 */
export async function apiWithTag(path, { method = 'GET', body, headers: extra, contentType } = {}) {
  const init = { method, headers: headers(extra), cache: 'no-store' };
  if (body !== undefined) {
    init.body = contentType ? body : JSON.stringify(body);
    init.headers['Content-Type'] = contentType || 'application/json';
  }
  const res = await fetch(path, init);
  if (!res.ok) throw new ApiError(res.status, await problemOf(res));
  return { body: res.status === 204 ? null : await res.json(), etag: res.headers.get('ETag') };
}

/** Downloads a file answer: fetch with the bearer header, then save the Blob under its server-given name. */
let kindsOnce = null;

/**
 * The task kinds this server runs (GET /api/v1/kinds: label, generic form fields, actions), fetched once per
 * page; resolves to a Map kind -> info, empty when they could not be read (the page then shows kind names).
 */
export function kinds() {
  if (!kindsOnce) {
    kindsOnce = api('/api/v1/kinds')
      .then(page => new Map(page.items.map(k => [k.kind, k])))
      .catch(() => { kindsOnce = null; return new Map(); });
  }
  return kindsOnce;
}

export async function download(path, fallbackName) {
  const res = await fetch(path, { headers: headers({ Accept: 'text/csv' }), cache: 'no-store' });
  if (!res.ok) throw new ApiError(res.status, await problemOf(res));
  const blob = await res.blob();
  const cd = res.headers.get('Content-Disposition') || '';
  const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(cd);
  const name = m ? decodeURIComponent(m[1]) : fallbackName;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
  return name;
}

/**
 * Reads a text/event-stream with fetch (EventSource cannot send an Authorization header) and
 * calls onEvent({event, id, data}) per frame. Reconnects with Last-Event-ID after a drop
 * (backoff 1 s doubling to 15 s, at least the Retry-After of a 429); stops on 401/403/404 or when
 * the server ends a finite stream (finite: true). Returns a function that closes the stream.
 */
export function openStream(path, { onEvent, onState, finite = false }) {
  const ctl = new AbortController();
  let lastId = null;
  let stopped = false;
  let delay = 1000;
  const state = s => onState && onState(s);

  async function once() {
    const h = headers({ Accept: 'text/event-stream' });
    if (lastId !== null) h['Last-Event-ID'] = lastId;
    const res = await fetch(path, { headers: h, signal: ctl.signal, cache: 'no-store' });
    if (!res.ok) {
      const after = Number.parseInt(res.headers.get('Retry-After') || '', 10);
      throw new ApiError(res.status, await problemOf(res), Number.isFinite(after) ? after : null);
    }
    state('open');
    delay = 1000;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    let frame = { event: 'message', data: [], id: null };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let m;
      while ((m = /\r\n|\n|\r/.exec(buf)) !== null) {
        if (m[0] === '\r' && m.index === buf.length - 1) break; // maybe \r\n split over chunks
        const line = buf.slice(0, m.index);
        buf = buf.slice(m.index + m[0].length);
        if (line === '') {
          if (frame.id !== null) lastId = frame.id;
          if (frame.data.length) onEvent({ event: frame.event, id: frame.id, data: frame.data.join('\n') });
          frame = { event: 'message', data: [], id: null };
        } else if (!line.startsWith(':')) {
          const i = line.indexOf(':');
          const field = i < 0 ? line : line.slice(0, i);
          let v = i < 0 ? '' : line.slice(i + 1);
          if (v.startsWith(' ')) v = v.slice(1);
          if (field === 'data') frame.data.push(v);
          else if (field === 'event') frame.event = v;
          else if (field === 'id') frame.id = v;
        }
      }
    }
  }

  (async () => {
    while (!stopped) {
      try {
        await once();
        if (finite || stopped) break;
        state('reconnecting');
      } catch (e) {
        if (stopped) break;
        if (e instanceof ApiError && [401, 403, 404].includes(e.status)) {
          state('error', e);
          break;
        }
        state('reconnecting', e);
        if (e instanceof ApiError && e.retryAfter) delay = Math.max(delay, e.retryAfter * 1000);
      }
      await new Promise(r => setTimeout(r, delay));
      delay = Math.min(delay * 2, 15000);
    }
    if (!stopped) state('closed');
  })();

  return () => {
    stopped = true;
    ctl.abort();
  };
}
