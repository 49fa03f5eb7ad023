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
/** How long the floors' client idles before each timed statement, as a trickle's producer does between jobs. */
const IDLE_GAP_MS = 50;

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
 * With the wake: a trickle of `samples` jobs 50 ms apart (20/s), each enqueue awaited, none waiting for the one
 * before it to start — the rate the wake slot was once shaped around. Without it: one job at a time at a random
 * phase to the poll. Each start is attributed to the pass that claimed it, from the worker's marks: the wake's own
 * pass (claim sent within 5 ms of the latest wake), the sweep after it, or another pass (a poll, a freed slot).
 */
async function latencies(url, mode, samples) {
  const worker = await spawnWorker(url, mode);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const driver = jobsPg.postgresJobDriver({ executor: jobsPg.pgPoolExecutor(pool) });
  const fromCall = [];
  const fromCommit = [];
  const parts = { toWake: [], toClaim: [], claim: [], toBody: [] };
  const foundBy = { wake: 0, sweep: 0, other: 0 };
  const sweepMs = jobsPg.WAKE_SWEEP_MS ?? 0;
  const sample = async () => {
    const job = request('pickup', 'bench.pickup');
    const called = preciseNow();
    await driver.enqueue(job);
    const committed = preciseNow();
    const { at, marks } = await worker.startOf(job.id);
    fromCall.push(at - called);
    fromCommit.push(at - committed);
    if (marks.woke === undefined || marks.claimSent === undefined) return void foundBy.other++;
    const afterWake = marks.claimSent - marks.woke;
    if (afterWake < 5) foundBy.wake++;
    else if (sweepMs > 0 && afterWake >= sweepMs - 1 && afterWake < sweepMs + 10) foundBy.sweep++;
    else foundBy.other++;
    parts.toWake.push(marks.woke - committed);
    parts.toClaim.push(afterWake);
    parts.claim.push(marks.claimBack - marks.claimSent);
    parts.toBody.push(at - marks.claimBack);
  };
  try {
    await driver.enqueue(request('pickup', 'bench.pickup')); // warm both sides
    await sleep(mode === 'wake' ? 300 : 2_500);
    const pending = [];
    for (let i = 0; i < samples; i++) {
      if (mode === 'wake') {
        pending.push(sample());
        await sleep(50);
      } else {
        await sleep(300 + Math.random() * 700); // no phase lock with the poll
        await sample();
      }
    }
    await Promise.all(pending);
  } finally {
    await worker.stop();
    await pool.end();
  }
  return { live: worker.live, fromCall, fromCommit, parts, foundBy };
}

/**
 * What the wake announces: notifications heard on a LISTEN session per 1,000 enqueues, 20 in flight (the driver
 * batches overlapping calls) and one at a time, with the enqueue rate beside each. Every enqueue is due now, on one
 * queue: the worst case for the throttle.
 */
async function announcements(url, total) {
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  let heard = 0;
  listener.on('notification', (n) => {
    if (n.payload === 'announce') heard++;
  });
  await listener.query(`listen ${jobsPg.WAKE_CHANNEL}`);
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  const driver = jobsPg.postgresJobDriver({ executor: jobsPg.pgPoolExecutor(pool) });
  const run = async (inFlight) => {
    heard = 0;
    let next = 0;
    const started = preciseNow();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next++ < total) await driver.enqueue(request('announce', 'bench.announce'));
      }),
    );
    const perSecond = (total * 1_000) / (preciseNow() - started);
    // a marker sent after the enqueues arrives after everything they announced
    const marker = `marker/${preciseNow()}`;
    const arrived = new Promise((resolve) =>
      listener.on('notification', (n) => (n.payload === marker ? resolve() : undefined)),
    );
    await pool.query('select pg_notify($1, $2)', [jobsPg.WAKE_CHANNEL, marker]);
    await arrived;
    return { perSecond, per1000: (heard * 1_000) / total };
  };
  try {
    await run(20); // warm the pool
    return { flight20: await run(20), serial: await run(1) };
  } finally {
    await pool.end();
    await listener.end();
  }
}

/**
 * Statements an idle worker with a proven wake runs, counted in its process over `windowMs` once its wait is at the
 * ceiling, and the notifications heard on `x_jobs_wake` meanwhile (an idle system announces nothing).
 */
async function idleStatements(url, windowMs) {
  const worker = await spawnWorker(url, 'wake');
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  let heard = 0;
  listener.on('notification', () => heard++);
  await listener.query(`listen ${jobsPg.WAKE_CHANNEL}`);
  try {
    // the idle wait doubles from 250 ms to the 5 s ceiling: 250 + 500 + … + 4,000 ≈ 8 s, then 5 s apart
    await sleep(14_000);
    const before = await worker.statements();
    heard = 0;
    await sleep(windowMs);
    const after = await worker.statements();
    return {
      live: worker.live,
      perMinute: ((after - before) * 60_000) / windowMs,
      notifications: heard,
    };
  } finally {
    await listener.end();
    await worker.stop();
  }
}

/**
 * What one round trip and one committed insert cost from a client that waited as long as the pickup samples wait
 * (50 ms, a trickle's gap): on a VM whose idle CPUs sleep, a waking process pays for it on every hop. These are
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
      await sleep(IDLE_GAP_MS);
      let started = preciseNow();
      await client.query('select 1');
      roundTrip.push(preciseNow() - started);
      await sleep(IDLE_GAP_MS);
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
    line('floor: `select 1` after 50 ms idle', floors.roundTrip);
    line('floor: committed single-row insert after 50 ms idle', floors.insert);
    const woken = await latencies(db.url, 'wake', Number(process.env.BENCH_PICKUP_SAMPLES ?? 120));
    if (!woken.live)
      console.log('  (the wake was NOT proven in the worker: these figures are the poll’s)');
    line(
      'with the wake, a trickle of 20/s: enqueue call → body start, p50',
      woken.fromCall,
      'target p50 ≤ 3 ms, p99 ≤ 10 ms',
    );
    line('with the wake, a trickle of 20/s: enqueue committed → body start, p50', woken.fromCommit);
    const { toWake, toClaim, claim, toBody } = woken.parts;
    if (claim.length > 0) {
      line('  of which: committed → notification in the worker', toWake);
      line('  of which: notification → claim sent', toClaim);
      line('  of which: claim round trip (a committed update)', claim);
      line('  of which: claim answered → body start', toBody);
    }
    const by = woken.foundBy;
    report(
      '  started by: the wake’s pass / the sweep / another pass',
      `${by.wake} / ${by.sweep} / ${by.other}`,
      'another pass: a poll or a freed slot',
    );
    const polled = await latencies(db.url, 'poll', Number(process.env.BENCH_POLL_SAMPLES ?? 30));
    line('without the wake (idle poll, 2 s ceiling): call → start, p50', polled.fromCall);

    console.log('\nWake announcements (one queue, every job due now: the throttle’s worst case)');
    const told = await announcements(db.url, Number(process.env.BENCH_ANNOUNCE_JOBS ?? 2_000));
    report(
      'notifications per 1,000 enqueues, 20 in flight',
      whole(told.flight20.per1000),
      `at ${whole(told.flight20.perSecond)} enqueues/s`,
    );
    report(
      'notifications per 1,000 enqueues, one at a time',
      whole(told.serial.per1000),
      `at ${whole(told.serial.perSecond)} enqueues/s`,
    );

    console.log('\nIdle cost');
    const windowMs = Number(process.env.BENCH_IDLE_WINDOW_MS ?? 60_000);
    const idle = await idleStatements(db.url, windowMs);
    report(
      'statements per idle worker minute, proven wake',
      `${whole(idle.perMinute)} /min`,
      `target ≤ 12; counted over ${whole(windowMs / 1000)} s in the worker process and scaled to a minute${idle.live ? '' : ' (wake NOT proven)'}`,
    );
    report(
      'notifications heard while idle',
      whole(idle.notifications),
      `over ${whole(windowMs / 1000)} s; target 0`,
    );
  } finally {
    await db.drop();
  }
}
