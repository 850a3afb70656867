'use strict';
// P9 (issue 52), the seed's stack on the create side: <tasks> jobs created as <tasks / batch> BullMQ flows of <batch>
// children under one parent each (FlowProducer.add: the parent runs once its children completed, BullMQ's
// "completion"), and the same jobs as queue.addBulk(<batch>) calls; both on the same Redis, no worker, no
// PostgreSQL (the seed writes its ledger rows besides, which this leaves out: its create side is only faster for it).
// One uncounted flow and one uncounted addBulk first (warm V8 and the connection). Job ids "<uuid>-0" and options as
// p2s.js. Usage: node p9.js <redis-url> <key-prefix> <tasks> <batch>. Prints one JSON line; deletes its keys.
const { Queue, FlowProducer } = require('bullmq');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const version = (pkg) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', pkg, 'package.json'), 'utf8')).version;

const JOB_OPTS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 2000 },
  removeOnComplete: { age: 86400, count: 1000 },
  removeOnFail: { age: 604800, count: 1000 },
};

function connection(url) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379), maxRetriesPerRequest: null };
}

function children(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const taskId = crypto.randomUUID();
    out.push({ name: 'reminder', queueName: 'tasks', data: { taskId, run: 0 }, opts: { ...JOB_OPTS, jobId: `${taskId}-0` } });
  }
  return out;
}

async function main() {
  const [url, prefix, tasksArg, batchArg] = process.argv.slice(2);
  const tasks = Number(tasksArg);
  const batch = Number(batchArg);
  const rounds = Math.floor(tasks / batch);
  const conn = connection(url);
  const flows = new FlowProducer({ connection: conn, prefix });
  const tasksQueue = new Queue('tasks', { connection: conn, prefix });
  const reports = new Queue('reports', { connection: conn, prefix });
  try {
    await flows.add({ name: 'report', queueName: 'reports', data: {}, children: children(batch) }); // warm-up
    await tasksQueue.addBulk(children(batch).map((c) => ({ name: c.name, data: c.data, opts: c.opts })));
    const flowBodies = Array.from({ length: rounds }, () => children(batch));
    let t0 = process.hrtime.bigint();
    for (const kids of flowBodies) {
      await flows.add({ name: 'report', queueName: 'reports', data: {}, children: kids });
    }
    const flowS = Number(process.hrtime.bigint() - t0) / 1e9;
    const bulkBodies = Array.from({ length: rounds }, () => children(batch).map((c) => ({ name: c.name, data: c.data, opts: c.opts })));
    t0 = process.hrtime.bigint();
    for (const jobs of bulkBodies) {
      await tasksQueue.addBulk(jobs);
    }
    const bulkS = Number(process.hrtime.bigint() - t0) / 1e9;
    const rate = (s) => Math.round((tasks / s) * 10) / 10;
    console.error(`P9 seed: ${rounds} flows of ${batch} in ${flowS.toFixed(3)} s; ${rounds} addBulk of ${batch} in ${bulkS.toFixed(3)} s`);
    console.log(JSON.stringify({ tasks, batchSize: batch, flowCreateSeconds: Math.round(flowS * 1000) / 1000,
      flowCreatePerSecond: rate(flowS), addBulkCreateSeconds: Math.round(bulkS * 1000) / 1000,
      addBulkCreatePerSecond: rate(bulkS), bullmq: version('bullmq') }));
  } finally {
    await tasksQueue.obliterate({ force: true }).catch((e) => console.error(`P9: obliterate tasks: ${e.message}`));
    await reports.obliterate({ force: true }).catch((e) => console.error(`P9: obliterate reports: ${e.message}`));
    await Promise.all([flows.close(), tasksQueue.close(), reports.close()]);
  }
}

const guard = setTimeout(() => { console.error('P9 seed: not done within 300 s'); process.exit(2); }, 300000);
guard.unref();
main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
