'use strict';
// P2s (issue 33), the seed's stack: BullMQ 6 on the same Redis plus node-postgres on the same PostgreSQL, a ledger
// row per task written with the seed's statements (schema: bench/sql/p2s-ledger.sql, dropped and created in the
// given database on every run), the executions of SPEC R7-R14. Modes (bench/notes/P2.md, "P2s — the seed's
// stack (issue 33): method"):
//   engine    <tasks> WAITING EXPORT rows inserted by one SQL statement, then one BullMQ job per row (addBulk in
//             batches of 1000), processed by one Worker with <concurrency>: claim (R7), the no-op export of a
//             user with no tickets (role SELECT + one 0-row ticket page; CSV = BOM + header), lease-checked
//             completion (R13), then BullMQ completes the job. engineTasksPerSecond = tasks / (first claim ->
//             last ledger completion). Our P2 engine round.
//   reminder  the same with REMINDER rows, one per ticket of a few teams: after the claim, ONE transaction on one
//             pooled client: team row FOR UPDATE (the team lock), notification INSERT, ticket version bump,
//             system event INSERT, lease-checked completion; COMMIT, or ROLLBACK when the completion matched 0
//             rows (R14). engineTasksPerSecond as above. The peer of P2r.
//   api       the whole path: an http server child (RS256 JWT checked with crypto.verify, exp and iss; membership
//             SELECT; INSERT ... RETURNING; queue.add; 201 with the row) and a worker child as in engine;
//             <clients> closed loops here, each on its own keep-alive connection, POST <tasks> EXPORT SELF tasks
//             in all. tasksPerSecond = tasks / (first POST -> last row COMPLETED in the ledger, polled every
//             20 ms). Our P2 API round.
// Each mode first runs an uncounted pass of P2S_WARMUP tasks (default 3000; 0 = none) in the same processes, so
// V8 is warm (as p1.js), then VACUUM (ANALYZE) (autovacuum is off on the bench machines; bench/run vacuums ours
// before each round too). Job options as ours and p1.js; job id "<taskId>-<run>" (R1); job data {taskId, run}.
// Usage: node p2s.js <mode> <redis-url> <key-prefix> <postgres-connection-string> <tasks> <concurrency> [clients]
// Prints one JSON line on stdout. Deletes its Redis keys (only <key-prefix>:*). Every wait is bounded: a timeout
// exits non-zero with a message on stderr.
const { Queue, Worker, UnrecoverableError } = require('bullmq');
const IORedis = require('ioredis');
const { Pool } = require('pg');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const path = require('path');
const { fork } = require('child_process');

const QUEUE = 'tasks';
const BULK = 1000;
const TIMEOUT_MS = 300000;
const START_TIMEOUT_MS = 30000;
const MAX_TASK_ATTEMPTS = 3;
const EXPORT_BATCH = 500;
const ISS = 'teamdesk-p2s';
const BOM_HEADER = '\uFEFFid,title,status,priority,assignee,requester,created_at,updated_at,version,body\r\n';
const REMINDER_TEAMS = 4;
const TICKETS_PER_TEAM = 4;
const JOB_OPTS = {
  attempts: MAX_TASK_ATTEMPTS,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 86400, count: 1000 },
  removeOnFail: { age: 604800, count: 1000 },
};

const rate = (n, ms) => Math.round((n * 10000) / ms) / 10;
const version = (pkg) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', pkg, 'package.json'), 'utf8')).version;

function redisConnection(url) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379), maxRetriesPerRequest: null };
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---- the seed's ledger statements ------------------------------------------------------------------------------

class LeaseLost extends Error {}
class TaskRejected extends Error {}

const SQL = {
  claim: "UPDATE background_task SET status = 'RUNNING', execution_id = $3, attempts = $4, progress = 0,"
    + " updated_at = now() WHERE id = $1 AND run = $2 AND status IN ('WAITING', 'RUNNING')"
    + ' RETURNING kind, team_id, owner_id, scope, filters',
  role: 'SELECT role FROM membership WHERE team_id = $1 AND user_id = $2',
  ticketPage: 'SELECT id, title, status, version, created_at, updated_at FROM ticket'
    + ' WHERE team_id = $1 AND ($2::uuid IS NULL OR requester_id = $2) AND (created_at, id) > ($3, $4)'
    + ' ORDER BY created_at, id LIMIT $5',
  progress: 'UPDATE background_task SET progress = $4, updated_at = now()'
    + " WHERE id = $1 AND run = $2 AND execution_id = $3 AND status = 'RUNNING'",
  completeExport: "UPDATE background_task SET status = 'COMPLETED', progress = 100, execution_id = NULL,"
    + " result_csv = $4, result_summary = $5, expires_at = now() + interval '24 hours', updated_at = now()"
    + " WHERE id = $1 AND run = $2 AND execution_id = $3 AND status = 'RUNNING'",
  fail: 'UPDATE background_task SET status = $4, execution_id = NULL, last_error = $5, updated_at = now()'
    + " WHERE id = $1 AND run = $2 AND execution_id = $3 AND status = 'RUNNING'",
  teamLock: 'SELECT id FROM team WHERE id = $1 FOR UPDATE',
  notification: 'INSERT INTO notification (id, task_id, ticket_id, user_id, body, created_at)'
    + ' VALUES ($1, $2, $3, $4, $5, now())',
  bumpTicket: 'UPDATE ticket SET version = version + 1, updated_at = now() WHERE id = $1 AND team_id = $2',
  systemEvent: "INSERT INTO system_event (team_id, task_id, kind, payload, created_at) VALUES ($1, $2, 'REMINDER_SENT', $3, now())",
  completeReminder: "UPDATE background_task SET status = 'COMPLETED', progress = 100, execution_id = NULL,"
    + " result_summary = '1 notification', updated_at = now()"
    + " WHERE id = $1 AND run = $2 AND execution_id = $3 AND status = 'RUNNING'",
  insertOne: 'INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,'
    + " progress, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 'WAITING', 0, 0, 0, now(), now()) RETURNING *",
  insertExports: 'INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,'
    + " progress, created_at, updated_at) SELECT gen_random_uuid(), 'EXPORT', $1, $2, 'SELF', '{}', 'WAITING', 0, 0,"
    + ' 0, now(), now() FROM generate_series(1, $3) RETURNING id, run',
  insertReminders: 'INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,'
    + " progress, created_at, updated_at) SELECT gen_random_uuid(), 'REMINDER', tk.team_id, $1, 'TEAM',"
    + " jsonb_build_object('ticketId', tk.id, 'message', 'P2s reminder'), 'WAITING', 0, 0, 0, now(), now()"
    + ' FROM generate_series(0, $2 - 1) g JOIN (SELECT id, team_id, row_number() OVER (ORDER BY team_id, id) - 1 AS i,'
    + ' count(*) OVER () AS n FROM ticket) tk ON tk.i = g % tk.n RETURNING id, run',
};

const csvCell = (v) => {
  let s = v instanceof Date ? v.toISOString() : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

async function expectOne(pool, sql, params) {
  const r = await pool.query(sql, params);
  if (r.rowCount !== 1) throw new LeaseLost();
}

// R13 for the fields the bench uses (SELF/TEAM scope, no filters): permission, keyset pages, progress per batch.
async function runExport(pool, job, executionId, task) {
  const { taskId, run } = job.data;
  const lease = [taskId, run, executionId];
  const role = (await pool.query(SQL.role, [task.team_id, task.owner_id])).rows[0];
  if (!role || (task.scope === 'TEAM' && role.role === 'CUSTOMER')) throw new TaskRejected('You may no longer export these tickets.');
  const requester = task.scope === 'SELF' ? task.owner_id : null;
  let csv = BOM_HEADER;
  let count = 0;
  let after = [new Date(0), '00000000-0000-0000-0000-000000000000'];
  for (;;) {
    const page = (await pool.query(SQL.ticketPage, [task.team_id, requester, after[0], after[1], EXPORT_BATCH])).rows;
    for (const t of page) {
      csv += [t.id, t.title, t.status, '', '', '', t.created_at, t.updated_at, t.version, ''].map(csvCell).join(',') + '\r\n';
    }
    count += page.length;
    if (page.length < EXPORT_BATCH) break;
    after = [page[page.length - 1].created_at, page[page.length - 1].id];
    await expectOne(pool, SQL.progress, [...lease, Math.min(99, count % 100)]);
    await job.updateProgress(Math.min(99, count % 100));
  }
  await expectOne(pool, SQL.completeExport, [...lease, Buffer.from(csv, 'utf8'), `${count} tickets`]);
}

// R14: the team lock and the four writes in one transaction; a completion that matches no row rolls all back.
async function runReminder(pool, job, executionId, task) {
  const { taskId, run } = job.data;
  const client = await pool.connect();
  let ok = false;
  try {
    await client.query('BEGIN');
    const team = await client.query(SQL.teamLock, [task.team_id]);
    if (team.rowCount !== 1) throw new TaskRejected('The team is gone.');
    const ticketId = task.filters.ticketId;
    await client.query(SQL.notification, [crypto.randomUUID(), taskId, ticketId, task.owner_id, task.filters.message]);
    const bumped = await client.query(SQL.bumpTicket, [ticketId, task.team_id]);
    if (bumped.rowCount !== 1) throw new TaskRejected('The ticket is gone.');
    await client.query(SQL.systemEvent, [task.team_id, taskId, JSON.stringify({ ticketId, recipients: 1 })]);
    const done = await client.query(SQL.completeReminder, [taskId, run, executionId]);
    if (done.rowCount !== 1) throw new LeaseLost();
    await client.query('COMMIT');
    ok = true;
  } finally {
    if (!ok) await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

// The processor (R7-R12). `pass` collects the first claim and the last ledger completion of the current pass.
function processor(pool, pass) {
  return async (job) => {
    const { taskId, run } = job.data;
    const executionId = crypto.randomUUID();
    const claimedAt = performance.now();
    if (pass.firstClaim === undefined) pass.firstClaim = claimedAt;
    const claim = await pool.query(SQL.claim, [taskId, run, executionId, job.attemptsMade + 1]);
    if (claim.rowCount === 0) return; // an old run's message or a finished task (R7)
    const task = claim.rows[0];
    try {
      if (task.kind === 'EXPORT') await runExport(pool, job, executionId, task);
      else await runReminder(pool, job, executionId, task);
      pass.lastCompletion = performance.now();
      pass.completed++;
    } catch (e) {
      if (e instanceof LeaseLost) return; // R9
      const final = e instanceof TaskRejected || job.attemptsMade + 1 >= MAX_TASK_ATTEMPTS;
      const message = e instanceof TaskRejected ? e.message : 'The task failed; it will be retried.';
      const r = await pool.query(SQL.fail, [taskId, run, executionId, final ? 'FAILED' : 'WAITING', message]);
      if (r.rowCount !== 1) return; // R11: not ours any more
      if (e instanceof TaskRejected) throw new UnrecoverableError(e.message);
      throw e;
    }
  };
}

function startWorker(connection, prefix, pool, concurrency, pass, onFailed) {
  const worker = new Worker(QUEUE, processor(pool, pass), { connection, prefix, concurrency });
  worker.on('failed', (job, err) => onFailed(`job ${job && job.id} failed: ${err && err.message}`));
  worker.on('error', (err) => console.error(`P2s: worker error: ${err && err.message}`));
  return worker;
}

// ---- JWT (RS256) ---------------------------------------------------------------------------------------------

function signJwt(privateKey, claims) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const data = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${data}.${crypto.sign('sha256', Buffer.from(data), privateKey).toString('base64url')}`;
}

function verifyJwt(publicKey, token) {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url'));
    if (header.alg !== 'RS256') return null;
    if (!crypto.verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), publicKey, Buffer.from(parts[2], 'base64url'))) {
      return null;
    }
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url'));
    if (claims.iss !== ISS || typeof claims.exp !== 'number' || claims.exp * 1000 <= Date.now()) return null;
    return typeof claims.sub === 'string' ? claims : null;
  } catch {
    return null;
  }
}

// ---- children: the API server and the API mode's worker -------------------------------------------------------

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function serverChild(cfg) {
  const connection = redisConnection(cfg.redisUrl);
  const pool = new Pool({ connectionString: cfg.pg, max: cfg.clients + 2 });
  const queue = new Queue(QUEUE, { connection, prefix: cfg.prefix });
  await queue.waitUntilReady();
  const publicKey = crypto.createPublicKey(cfg.publicKey);
  const send = (res, status, body) => {
    const s = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
    res.end(s);
  };
  const handle = async (req, res, raw) => {
    const m = /^\/api\/v1\/teams\/([^/?]+)\/tasks$/.exec(req.url);
    if (!m) return send(res, 404, { error: 'Not found.' });
    if (req.method !== 'POST') return send(res, 405, { error: 'Method not allowed.' });
    const auth = req.headers.authorization || '';
    const claims = auth.startsWith('Bearer ') ? verifyJwt(publicKey, auth.slice(7)) : null;
    if (!claims) return send(res, 401, { error: 'Sign in again.' });
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 400, { error: 'The body is not JSON.' });
    }
    if (body.kind !== 'EXPORT' || !['SELF', 'TEAM'].includes(body.scope || 'SELF')) {
      return send(res, 400, { error: 'Only EXPORT tasks with scope SELF or TEAM.' });
    }
    const teamId = m[1];
    if (!UUID_RE.test(teamId) || !UUID_RE.test(claims.sub)) return send(res, 404, { error: 'No such team.' });
    const member = (await pool.query(SQL.role, [teamId, claims.sub])).rows[0];
    if (!member) return send(res, 404, { error: 'No such team.' });
    const scope = body.scope || 'SELF';
    if (scope === 'TEAM' && member.role === 'CUSTOMER') return send(res, 403, { error: 'Only staff may export the team.' });
    const row = (await pool.query(SQL.insertOne, [crypto.randomUUID(), 'EXPORT', teamId, claims.sub, scope, body.filters || {}])).rows[0];
    await queue.add('EXPORT', { taskId: row.id, run: row.run }, { ...JOB_OPTS, jobId: `${row.id}-${row.run}` });
    return send(res, 201, row);
  };
  const server = http.createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > 65536) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((e) => {
        console.error(`P2s server: ${e.message}`);
        if (!res.headersSent) send(res, 500, { error: 'Internal error.' });
      });
    });
  });
  server.keepAliveTimeout = 60000;
  await new Promise((resolve, reject) => server.listen(0, '127.0.0.1', resolve).on('error', reject));
  process.on('message', async (msg) => {
    if (msg && msg.type === 'stop') {
      server.close();
      server.closeAllConnections();
      await queue.close();
      await pool.end();
      process.exit(0);
    }
  });
  process.send({ type: 'ready', port: server.address().port });
}

async function workerChild(cfg) {
  const connection = redisConnection(cfg.redisUrl);
  const pool = new Pool({ connectionString: cfg.pg, max: cfg.concurrency + 2 });
  const pass = { completed: 0 };
  const worker = startWorker(connection, cfg.prefix, pool, cfg.concurrency, pass,
    (m) => process.send({ type: 'failed', message: m }));
  await worker.waitUntilReady();
  process.on('message', async (msg) => {
    if (msg && msg.type === 'stop') {
      await worker.close();
      await pool.end();
      process.exit(0);
    }
  });
  process.send({ type: 'ready' });
}

// ---- the driver ------------------------------------------------------------------------------------------------

async function setupDatabase(pool, mode) {
  await pool.query(fs.readFileSync(path.join(__dirname, '..', 'sql', 'p2s-ledger.sql'), 'utf8'));
  const user = crypto.randomUUID();
  await pool.query('INSERT INTO app_user (id, username) VALUES ($1, $2)', [user, 'p2s-user']);
  // the export's team: the user is a member with no tickets (a 0-row CSV, the cheapest task there is)
  const idle = crypto.randomUUID();
  await pool.query('INSERT INTO team (id, slug) VALUES ($1, $2)', [idle, 'p2s-idle']);
  await pool.query("INSERT INTO membership (team_id, user_id, role) VALUES ($1, $2, 'STAFF')", [idle, user]);
  if (mode === 'reminder') {
    for (let t = 0; t < REMINDER_TEAMS; t++) {
      const team = crypto.randomUUID();
      await pool.query('INSERT INTO team (id, slug) VALUES ($1, $2)', [team, `p2s-team-${t}`]);
      await pool.query("INSERT INTO membership (team_id, user_id, role) VALUES ($1, $2, 'STAFF')", [team, user]);
      await pool.query("INSERT INTO ticket (id, team_id, requester_id, title) SELECT gen_random_uuid(), $1, $2, 'Ticket ' || i"
        + ' FROM generate_series(1, $3) i', [team, user, TICKETS_PER_TEAM]);
    }
  }
  return { user, idle };
}

async function vacuum(pool) {
  await pool.query('VACUUM (ANALYZE) background_task, notification, ticket, system_event, team');
}

async function verifyCompleted(pool, ids, mode) {
  const r = (await pool.query("SELECT count(*) FILTER (WHERE status = 'COMPLETED')::int AS done,"
    + " count(*) FILTER (WHERE status = 'FAILED')::int AS failed FROM background_task WHERE id = ANY($1::uuid[])", [ids])).rows[0];
  if (r.done !== ids.length) throw new Error(`${r.done} of ${ids.length} tasks COMPLETED, ${r.failed} FAILED`);
  if (mode === 'reminder') {
    const s = (await pool.query('SELECT (SELECT count(*) FROM notification WHERE task_id = ANY($1::uuid[]))::int AS n,'
      + ' (SELECT count(*) FROM system_event WHERE task_id = ANY($1::uuid[]))::int AS e', [ids])).rows[0];
    if (s.n !== ids.length || s.e !== ids.length) {
      throw new Error(`reminders: ${s.n} notifications and ${s.e} system events for ${ids.length} tasks`);
    }
  }
}

// engine / reminder: one pass of n tasks through the worker running in this process.
async function enginePass(ctx, n) {
  const { pool, queue, pass, fx, mode } = ctx;
  pass.firstClaim = undefined;
  pass.lastCompletion = undefined;
  pass.completed = 0;
  ctx.queueCompleted = 0;
  const finished = new Promise((resolve) => { ctx.onQueueCompleted = () => { if (ctx.queueCompleted >= n) resolve(); }; });
  const t0 = performance.now();
  const rows = mode === 'reminder'
    ? (await pool.query(SQL.insertReminders, [fx.user, n])).rows
    : (await pool.query(SQL.insertExports, [fx.idle, fx.user, n])).rows;
  for (let i = 0; i < rows.length; i += BULK) {
    await queue.addBulk(rows.slice(i, i + BULK).map((r) => ({
      name: mode === 'reminder' ? 'REMINDER' : 'EXPORT',
      data: { taskId: r.id, run: r.run },
      opts: { ...JOB_OPTS, jobId: `${r.id}-${r.run}` },
    })));
  }
  await withTimeout(Promise.race([finished, ctx.failure]), TIMEOUT_MS, `${mode} pass of ${n}`);
  const allMs = performance.now() - t0;
  await verifyCompleted(pool, rows.map((r) => r.id), mode);
  if (pass.completed !== n) throw new Error(`${pass.completed} ledger completions for ${n} tasks`);
  const execMs = pass.lastCompletion - pass.firstClaim;
  return { rate: rate(n, execMs), claimToLastCompletionSeconds: execMs / 1000, insertToLastCompletionSeconds: allMs / 1000 };
}

function post(agent, port, teamId, token, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, path: `/api/v1/teams/${teamId}/tasks`, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 201) reject(new Error(`POST answered ${res.statusCode}: ${text}`));
        else resolve(JSON.parse(text));
      });
      res.on('error', reject);
    });
    req.setTimeout(30000, () => req.destroy(new Error('POST: no answer within 30000 ms')));
    req.on('error', reject);
    req.end(body);
  });
}

// api: one pass of n POSTs by the closed loops, then the ledger polled every 20 ms until all are COMPLETED.
async function apiPass(ctx, n) {
  const { pool, port, fx, tokens, clients } = ctx;
  const body = JSON.stringify({ kind: 'EXPORT', scope: 'SELF' });
  const agents = tokens.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const ids = [];
  let next = 0;
  let posted = 0;
  const t0 = performance.now();
  try {
    let postError = null;
    agents.forEach(async (agent, c) => {
      try {
        while (next < n && !postError) {
          next++;
          const row = await post(agent, port, fx.idle, tokens[c], body);
          ids.push(row.id);
          posted++;
        }
      } catch (e) {
        postError = postError || e;
      }
    });
    const poller = await pool.connect();
    try {
      const deadline = Date.now() + TIMEOUT_MS;
      for (;;) {
        if (postError) throw postError;
        if (posted === n) {
          const left = (await poller.query("SELECT count(*)::int AS n FROM background_task WHERE status IN ('WAITING', 'RUNNING')")).rows[0].n;
          if (left === 0) break;
        }
        if (Date.now() > deadline) throw new Error(`api pass of ${n}: ${posted} posted, not all COMPLETED within ${TIMEOUT_MS} ms`);
        await Promise.race([new Promise((r) => setTimeout(r, 20)), ctx.failure]);
      }
    } finally {
      poller.release();
    }
    const allMs = performance.now() - t0;
    await verifyCompleted(pool, ids, 'api');
    return { rate: rate(n, allMs), firstPostToLastCompletedSeconds: allMs / 1000 };
  } finally {
    for (const a of agents) a.destroy();
  }
}

function startChild(role, cfg) {
  const child = fork(__filename, [], { env: { ...process.env, P2S_CHILD: JSON.stringify({ role, ...cfg }) } });
  const ready = new Promise((resolve, reject) => {
    child.on('message', (m) => { if (m && m.type === 'ready') resolve(m); });
    child.on('exit', (code) => reject(new Error(`${role} child exited with ${code} before it was ready`)));
  });
  return { child, ready: withTimeout(ready, START_TIMEOUT_MS, `${role} child start`) };
}

async function stopChild(child, role) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.send({ type: 'stop' });
  try {
    await withTimeout(exited, 20000, `${role} child stop`);
  } catch (e) {
    console.error(`P2s: ${e.message}; killing it`);
    child.kill('SIGKILL');
  }
}

async function deleteKeys(admin, prefix) {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`;
  let cursor = '0';
  do {
    const [nextCursor, keys] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = nextCursor;
    if (keys.length) await admin.del(...keys);
  } while (cursor !== '0');
}

async function main() {
  const [mode, redisUrl, prefix, pg, tasksArg, concurrencyArg, clientsArg] = process.argv.slice(2);
  const tasks = Number(tasksArg);
  const concurrency = Number(concurrencyArg);
  const clients = Number(clientsArg || 8);
  const warmup = Number(process.env.P2S_WARMUP === undefined ? 3000 : process.env.P2S_WARMUP);
  if (!['engine', 'reminder', 'api'].includes(mode) || !prefix || !pg || !(tasks > 0) || !(concurrency > 0)
      || !(clients > 0) || !(warmup >= 0)) {
    throw new Error('usage: node p2s.js engine|reminder|api <redis-url> <key-prefix> <postgres-connection-string>'
      + ' <tasks> <concurrency> [clients]  (env P2S_WARMUP, default 3000)');
  }
  const connection = redisConnection(redisUrl);
  const admin = new IORedis(connection);
  const pool = new Pool({ connectionString: pg, max: concurrency + 4 });
  const queue = new Queue(QUEUE, { connection, prefix });
  const ctx = { mode, pool, queue, clients, queueCompleted: 0, onQueueCompleted: () => {} };
  let failWith;
  ctx.failure = new Promise((_, reject) => { failWith = reject; });
  ctx.failure.catch(() => {});
  const onFailed = (m) => failWith(new Error(m));
  const children = [];
  let worker;
  try {
    ctx.fx = await setupDatabase(pool, mode);
    let run;
    if (mode === 'api') {
      const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
      const exp = Math.floor(Date.now() / 1000) + 3600;
      ctx.tokens = Array.from({ length: clients }, () => signJwt(privateKey, { iss: ISS, sub: ctx.fx.user, exp }));
      const cfg = { redisUrl, prefix, pg, clients, concurrency };
      const server = startChild('server', { ...cfg, publicKey: publicKey.export({ type: 'spki', format: 'pem' }) });
      const wk = startChild('worker', cfg);
      for (const [c, role] of [[server.child, 'server'], [wk.child, 'worker']]) {
        children.push([c, role]);
        c.on('message', (m) => { if (m && m.type === 'failed') onFailed(`${role}: ${m.message}`); });
      }
      ctx.port = (await server.ready).port;
      await wk.ready;
      for (const [c, role] of children) {
        c.on('exit', (code) => onFailed(`${role} child exited with ${code}`));
      }
      run = (n) => apiPass(ctx, n);
    } else {
      ctx.pass = { completed: 0 };
      worker = startWorker(connection, prefix, pool, concurrency, ctx.pass, onFailed);
      worker.on('completed', () => { ctx.queueCompleted++; ctx.onQueueCompleted(); });
      await withTimeout(worker.waitUntilReady(), START_TIMEOUT_MS, 'worker start');
      run = (n) => enginePass(ctx, n);
    }
    let warm = null;
    if (warmup > 0) {
      warm = await run(warmup);
      await vacuum(pool);
    }
    const counted = await run(tasks);
    const out = { mode, tasks, concurrency, clients: mode === 'api' ? clients : null };
    out[mode === 'api' ? 'tasksPerSecond' : 'engineTasksPerSecond'] = counted.rate;
    for (const [k, v] of Object.entries(counted)) if (k !== 'rate') out[k] = Math.round(v * 1000) / 1000;
    out.warmupTasks = warmup;
    out.warmupTasksPerSecond = warm ? warm.rate : null;
    out.bullmq = version('bullmq');
    out.pg = version('pg');
    console.log(JSON.stringify(out));
  } finally {
    for (const [c, role] of children) {
      c.removeAllListeners('exit');
      await stopChild(c, role);
    }
    if (worker) await worker.close();
    await queue.obliterate({ force: true }).catch((e) => console.error(`P2s: obliterate: ${e.message}`));
    await queue.close();
    await deleteKeys(admin, prefix);
    await admin.quit();
    await pool.end();
  }
}

if (process.env.P2S_CHILD) {
  const cfg = JSON.parse(process.env.P2S_CHILD);
  (cfg.role === 'server' ? serverChild(cfg) : workerChild(cfg)).catch((e) => {
    console.error(`P2s ${cfg.role}: ${e.stack || e}`);
    process.exit(1);
  });
  process.on('disconnect', () => process.exit(1)); // the parent is gone
} else if (require.main === module) {
  const watchdog = setTimeout(() => {
    console.error('P2s: the whole run took over 30 min; giving up');
    process.exit(2);
  }, 30 * 60 * 1000);
  watchdog.unref();
  main().then(() => process.exit(0), (e) => {
    console.error(`P2s: ${e.stack || e}`);
    process.exit(1);
  });
}

// for by-hand checks (node -e): the JWT check, the executions, the schema
module.exports = { signJwt, verifyJwt, runExport, runReminder, processor, setupDatabase, LeaseLost, TaskRejected, SQL, ISS };
