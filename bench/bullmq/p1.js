'use strict';
// P1, the peer's side: one round of no-op jobs through BullMQ 6 on the same Redis, the same steps as
// bench/src/main/java/bench/P1Queue.java:
//   1. add N jobs one at a time (each add awaited before the next), then process them with concurrency 1;
//   2. in a fresh queue, addBulk N jobs in batches of 1000, then process them with concurrency 16.
// Job options as ours: attempts 3, exponential backoff 2000 ms, removeOnComplete {age 86400 s, count 1000},
// removeOnFail {age 604800 s, count 1000}; caller-chosen job ids "job-i" (as our "T-run" ids).
// Processing time runs from worker.run() (after the worker's connections are ready) to the N-th
// 'completed' event.
// Both steps first run uncounted with <warmup> jobs under <key-prefix>-warmup (when warmup > 0), so that the
// counted phases time V8's optimised code, not its compiler (bench/notes/P1.md; our driver does the same).
// Usage: node p1.js <redis-url> <key-prefix> <jobs> [warmup]. Prints one JSON line. Deletes its keys.
const { Queue, Worker } = require('bullmq');
const IORedis = require('ioredis');

const [url, prefix, jobsArg, warmupArg] = process.argv.slice(2);
const jobs = Number(jobsArg);
const warmup = Number(warmupArg || 0);
const BULK = 1000;
const PHASE_TIMEOUT_MS = 300000;
const opts = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 86400, count: 1000 },
  removeOnFail: { age: 604800, count: 1000 },
};
const u = new URL(url);
const connection = { host: u.hostname, port: Number(u.port || 6379), maxRetriesPerRequest: null };

const payload = (i) => ({ taskId: `00000000-0000-7ea4-0000-${i.toString(16).padStart(12, '0')}`, run: 0 });
const rate = (n, ms) => Math.round((n * 10000) / ms) / 10;

async function stats(redis) {
  const calls = {};
  for (const line of (await redis.info('commandstats')).split(/\r?\n/)) {
    const m = /^cmdstat_([^:]+):calls=(\d+),/.exec(line);
    if (m) calls[m[1]] = Number(m[2]);
  }
  let cpu = 0;
  for (const line of (await redis.info('cpu')).split(/\r?\n/)) {
    const m = /^used_cpu_(user|sys):([\d.]+)/.exec(line);
    if (m) cpu += Number(m[2]);
  }
  return { calls, cpuUs: Math.round(cpu * 1e6) };
}

function perJob(before, after, n) {
  const callsPerJob = {};
  for (const k of Object.keys(after.calls).sort()) {
    const d = after.calls[k] - (before.calls[k] || 0);
    if (d > 0 && k !== 'info') callsPerJob[k] = Math.round((d * 100) / n) / 100;
  }
  return { redisCpuUsPerJob: Math.round(((after.cpuUs - before.cpuUs) * 10) / n) / 10, callsPerJob };
}

async function processAll(prefix, jobs, name, concurrency) {
  let done = 0;
  let resolve;
  const finished = new Promise((r) => { resolve = r; });
  const worker = new Worker(name, async () => {}, { connection, prefix, concurrency, autorun: false });
  worker.on('completed', () => { if (++done === jobs) resolve(); });
  worker.on('failed', (job, err) => console.error(`P1 bullmq: job ${job && job.id} failed: ${err && err.message}`));
  worker.on('error', (err) => console.error(`P1 bullmq: worker error: ${err && err.message}`));
  await worker.waitUntilReady();
  const t0 = performance.now();
  worker.run().catch((e) => console.error(`P1 bullmq: run: ${e.message}`));
  let timer;
  const timeout = new Promise((_, rej) => {
    timer = setTimeout(() => rej(new Error(`processing did not finish in ${PHASE_TIMEOUT_MS} ms: ${jobs - done} left`)),
      PHASE_TIMEOUT_MS);
  });
  try {
    await Promise.race([finished, timeout]);
    return performance.now() - t0;
  } finally {
    clearTimeout(timer);
    await worker.close();
  }
}

// Both steps with `jobs` jobs under `prefix`; resolves to their figures.
async function round(admin, prefix, jobs) {
  const out = {};
  const q1 = new Queue('single', { connection, prefix });
  try {
    let t0 = performance.now();
    for (let i = 0; i < jobs; i++) {
      await q1.add('noop', payload(i), { ...opts, jobId: `job-${i}` });
    }
    out.add = rate(jobs, performance.now() - t0);
    const before = await stats(admin);
    out.process1 = rate(jobs, await processAll(prefix, jobs, 'single', 1));
    out.profile1 = perJob(before, await stats(admin), jobs);
  } finally {
    await q1.obliterate({ force: true });
    await q1.close();
  }
  const q16 = new Queue('bulk', { connection, prefix });
  try {
    const t0 = performance.now();
    for (let i = 0; i < jobs; i += BULK) {
      const batch = [];
      for (let j = i; j < Math.min(jobs, i + BULK); j++) {
        batch.push({ name: 'noop', data: payload(j), opts: { ...opts, jobId: `job-${j}` } });
      }
      await q16.addBulk(batch);
    }
    out.bulkAdd = rate(jobs, performance.now() - t0);
    const before = await stats(admin);
    out.process16 = rate(jobs, await processAll(prefix, jobs, 'bulk', 16));
    out.profile16 = perJob(before, await stats(admin), jobs);
  } finally {
    await q16.obliterate({ force: true });
    await q16.close();
  }
  return out;
}

async function main() {
  const admin = new IORedis(connection);
  if (warmup > 0) await round(admin, `${prefix}-warmup`, warmup);
  const out = { side: 'bullmq', jobs, warmupJobs: warmup, ...(await round(admin, prefix, jobs)) };
  await admin.quit();
  console.log(JSON.stringify(out));
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
