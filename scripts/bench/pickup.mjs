/**
 * Cross-process figures: how long a job another process enqueues waits before its body starts (with and without the
 * wake), and what an idle worker with a proven wake costs the database.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  freshDatabase,
  jobsPg,
  median,
  percentile,
  pg,
  preciseNow,
  report,
  request,
  sleep,
  whole,
} from './lib.mjs';

const CHILD = join(fileURLToPath(new URL('.', import.meta.url)), 'pickup-worker.mjs');
const SLOT_MS = jobsPg.WAKE_SLOT_MS;

/** Spawns the worker process; answers it once it is serving (and, with the wake, once the wake was proven). */
async function spawnWorker(url, mode) {
  const child = fork(CHILD, [url, mode], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const started = new Map();
  const waiters = new Map();
  let counted;
  child.on('message', (message) => {
    if (message.type === 'started') {
      const start = { at: message.at, marks: message.marks ?? {} };
      started.set(message.id, start);
      waiters.get(message.id)?.(start);
    }
    if (message.type === 'count') counted?.(message.statements);
  });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', (message) => (message.type === 'ready' ? resolve(message) : undefined));
    child.once('exit', (code) => reject(new Error(`pickup worker exited with ${code}`)));
  });
  return {
    live: ready.live,
    /** Resolves with the start time of job `id` and the worker's marks on the way there. */
    startOf: (id) =>
      started.has(id)
        ? Promise.resolve(started.get(id))
        : new Promise((resolve) => waiters.set(id, resolve)),
    statements: () =>
      new Promise((resolve) => {
        counted = resolve;
        child.send({ type: 'count' });
      }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.send({ type: 'stop' });
      }),
  };
}

/**
 * Enqueues `samples` jobs one at a time, each in a fresh wake slot (the throttle announces the first row of a queue
 * per 250 ms slot; later rows of the slot are found by the woken loop's next pass), and waits for each to start.
 */
async function latencies(url, mode, samples) {
  const worker = await spawnWorker(url, mode);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const driver = jobsPg.postgresJobDriver({ executor: jobsPg.pgPoolExecutor(pool) });
  const fromCall = [];
  const fromCommit = [];
  const parts = { toWake: [], toClaim: [], claim: [], toBody: [] };
  try {
    await driver.enqueue(request('pickup', 'bench.pickup')); // warm both sides
    await sleep(mode === 'wake' ? 300 : 2_500);
    for (let i = 0; i < samples; i++) {
      if (mode === 'wake') await sleep(SLOT_MS - (Date.now() % SLOT_MS) + 5);
      else await sleep(300 + Math.random() * 700); // no phase lock with the poll
      const job = request('pickup', 'bench.pickup');
      const called = preciseNow();
      await driver.enqueue(job);
      const committed = preciseNow();
      const { at, marks } = await worker.startOf(job.id);
      fromCall.push(at - called);
      fromCommit.push(at - committed);
      if (marks.woke !== undefined && marks.claimSent !== undefined) {
        parts.toWake.push(marks.woke - committed);
        parts.toClaim.push(marks.claimSent - marks.woke);
        parts.claim.push(marks.claimBack - marks.claimSent);
        parts.toBody.push(at - marks.claimBack);
      }
    }
  } finally {
    await worker.stop();
    await pool.end();
  }
  return { live: worker.live, fromCall, fromCommit, parts };
}

/** Statements an idle worker with a proven wake runs, counted in its process over `windowMs` once its wait is at the ceiling. */
async function idleStatements(url, windowMs) {
  const worker = await spawnWorker(url, 'wake');
  try {
    // the idle wait doubles from 250 ms to the 5 s ceiling: 250 + 500 + … + 4,000 ≈ 8 s, then 5 s apart
    await sleep(14_000);
    const before = await worker.statements();
    await sleep(windowMs);
    const after = await worker.statements();
    return { live: worker.live, perMinute: ((after - before) * 60_000) / windowMs };
  } finally {
    await worker.stop();
  }
}

/**
 * What one round trip and one committed insert cost from a client that waited as long as the pickup samples wait
 * (into the next 250 ms slot): on a VM whose idle CPUs sleep, a waking process pays for it on every hop. These are
 * the floors under the pickup figures — an enqueue is a committed insert, a claim is a committed update.
 */
async function idleFloors(url, samples) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const roundTrip = [];
  const insert = [];
  try {
    await client.query('create table if not exists bench_floor (id bigserial primary key, v text)');
    for (let i = 0; i < samples; i++) {
      await sleep(SLOT_MS - (Date.now() % SLOT_MS) + 5);
      let started = preciseNow();
      await client.query('select 1');
      roundTrip.push(preciseNow() - started);
      await sleep(SLOT_MS - (Date.now() % SLOT_MS) + 5);
      started = preciseNow();
      await client.query('insert into bench_floor (v) values ($1)', ['x']);
      insert.push(preciseNow() - started);
    }
  } finally {
    await client.end();
  }
  return { roundTrip, insert };
}

const line = (label, xs, target) =>
  report(
    label,
    `${median(xs).toFixed(2)} ms`,
    `p95 ${percentile(xs, 95).toFixed(2)} ms, p99 ${percentile(xs, 99).toFixed(2)} ms, n=${xs.length}${target ? `; ${target}` : ''}`,
  );

export async function benchPickup(serverUrl) {
  console.log(
    '\nPickup, cross-process: a worker child process; this process enqueues one job at a time',
  );
  const db = await freshDatabase(serverUrl);
  try {
    const floors = await idleFloors(db.url, Number(process.env.BENCH_FLOOR_SAMPLES ?? 40));
    line('floor: `select 1` after an idle slot', floors.roundTrip);
    line('floor: committed single-row insert after an idle slot', floors.insert);
    const woken = await latencies(db.url, 'wake', Number(process.env.BENCH_PICKUP_SAMPLES ?? 120));
    if (!woken.live)
      console.log('  (the wake was NOT proven in the worker: these figures are the poll’s)');
    line(
      'with the wake: enqueue call → body start, p50',
      woken.fromCall,
      'target p50 ≤ 1.5 ms, p99 ≤ 5 ms',
    );
    line('with the wake: enqueue committed → body start, p50', woken.fromCommit);
    const { toWake, toClaim, claim, toBody } = woken.parts;
    if (claim.length > 0) {
      line('  of which: committed → notification in the worker', toWake);
      line('  of which: notification → claim sent', toClaim);
      line('  of which: claim round trip (a committed update)', claim);
      line('  of which: claim answered → body start', toBody);
    }
    const polled = await latencies(db.url, 'poll', Number(process.env.BENCH_POLL_SAMPLES ?? 30));
    line('without the wake (idle poll, 2 s ceiling): call → start, p50', polled.fromCall);

    console.log('\nIdle cost');
    const windowMs = Number(process.env.BENCH_IDLE_WINDOW_MS ?? 15_000);
    const idle = await idleStatements(db.url, windowMs);
    report(
      'statements per idle worker minute, proven wake',
      `${whole(idle.perMinute)} /min`,
      `target ≤ 12; counted over ${whole(windowMs / 1000)} s in the worker process and scaled to a minute${idle.live ? '' : ' (wake NOT proven)'}`,
    );
  } finally {
    await db.drop();
  }
}
