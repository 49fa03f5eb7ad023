/**
 * Worker throughput: 50,000 no-op jobs drained by ONE worker at concurrency 10 in this process; the same drain while
 * another session sits idle in a transaction (holding back the xmin horizon, so dead tuples cannot be pruned); and the
 * cost of one `step.run`.
 */
import {
  fillQueue,
  freshDatabase,
  jobs,
  jobsPg,
  median,
  noopJob,
  pg,
  preciseNow,
  registryOf,
  repeat,
  report,
  request,
  sleep,
  whole,
} from './lib.mjs';

const JOBS = Number(process.env.BENCH_DRAIN_JOBS ?? 50_000);
const CONCURRENCY = 10;
const STEPS = 300;

// Job names are durable keys, declared once per process: the step job reports into whichever run is current.
const drainJob = noopJob('bench.drain', 'drain');
let stepRun;
const stepJob = noopJob('bench.steps', 'steps', async ({ step }) => {
  const run = stepRun;
  for (let i = 0; i < STEPS; i++) {
    const started = preciseNow();
    await step.run(`s${i}`, () => i);
    run.times.push(preciseNow() - started);
  }
  run.done = true;
});

/** Fills `db` with `total` no-op jobs in 1,000-row statements, then vacuums so every run starts alike. */
async function fill(db, total) {
  await fillQueue(
    jobsPg.postgresJobDriver({ executor: db.executor }),
    'drain',
    'bench.drain',
    total,
  );
  await db.pool.query('vacuum analyze x_jobs');
}

/** Drains `total` jobs with one worker; answers jobs per second from start() to the last completion. */
async function drainOnce(db, total, claimAhead) {
  const driver = jobsPg.postgresJobDriver({ executor: db.executor });
  const worker = jobs.jobWorker({
    driver,
    registry: registryOf(drainJob),
    concurrency: CONCURRENCY,
    ...(claimAhead === undefined ? {} : { claimAhead }),
  });
  const started = preciseNow();
  await worker.start();
  while (worker.stats().completed < total) await sleep(2);
  const elapsed = preciseNow() - started;
  // this process is the worker's: what it holds once the last job finished, before anything is released
  const memory = process.memoryUsage();
  await worker.stop();
  return { perSecond: (total * 1000) / elapsed, claims: worker.stats().claims, memory };
}

async function drainRun(serverUrl, { holdTransaction, claimAhead }) {
  const db = await freshDatabase(serverUrl);
  let holder;
  try {
    await fill(db, JOBS);
    if (holdTransaction) {
      holder = new pg.Client({ connectionString: db.url });
      await holder.connect();
      // an open transaction that took a snapshot: every row version the drain kills stays until it ends
      await holder.query('begin isolation level repeatable read');
      await holder.query('select count(*) from x_jobs');
    }
    return await drainOnce(db, JOBS, claimAhead);
  } finally {
    if (holder) {
      await holder.query('rollback').catch(() => {});
      await holder.end();
    }
    await db.drop();
  }
}

/**
 * The floor under the drain: the same driver's claim and ack with no worker around them — two loops, each claiming
 * 300 rows (10 for slots, 290 ahead, no rescue: the statement a busy worker sends) and settling them in one `ackMany`
 * while it claims the next. What the drain costs above this is the worker's own per-run work.
 */
async function floorRun(serverUrl) {
  const db = await freshDatabase(serverUrl);
  try {
    await fill(db, JOBS);
    const driver = jobsPg.postgresJobDriver({ executor: db.executor });
    const slot = { queue: 'drain', limit: 10, ahead: 290, names: [drainJob.name] };
    const acks = [];
    let done = 0;
    const loop = async () => {
      for (;;) {
        const rows = await driver.claim({
          workerId: 'floor',
          slots: [slot],
          visibilityTimeoutMs: 30_000,
        });
        if (rows.length === 0) return;
        const items = rows.map((r) => ({ jobId: r.id, workerId: r.workerId, claim: r.claim }));
        acks.push(driver.ackMany(items).then((landed) => (done += landed.length)));
      }
    };
    const started = preciseNow();
    await Promise.all([loop(), loop()]);
    await Promise.all(acks);
    return (done * 1000) / (preciseNow() - started);
  } finally {
    await db.drop();
  }
}

/** Median time of one `step.run` whose function returns a number at once: the durable write is the cost. */
async function stepOverhead(serverUrl) {
  const db = await freshDatabase(serverUrl);
  try {
    const run = (stepRun = { times: [], done: false });
    const driver = jobsPg.postgresJobDriver({ executor: db.executor });
    const worker = jobs.jobWorker({ driver, registry: registryOf(stepJob), concurrency: 1 });
    await worker.start();
    await driver.enqueue(request('steps', 'bench.steps'));
    worker.signalEnqueued('steps');
    while (!run.done) await sleep(5);
    await worker.stop();
    // the first step also reads the stored steps; the rest are one fenced write each
    return { median: median(run.times.slice(1)), first: run.times[0] };
  } finally {
    await db.drop();
  }
}

export async function benchDrain(serverUrl, runs) {
  console.log(
    `\nDrain: ${whole(JOBS)} no-op jobs, one worker process, concurrency ${CONCURRENCY} (default options unless said)`,
  );
  const plain = await repeat(runs, () => drainRun(serverUrl, { holdTransaction: false }));
  const rates = plain.map((r) => r.perSecond);
  report(
    'drain',
    `${whole(median(rates))} jobs/s`,
    `target ≥ 35,000; runs ${rates.map(whole).join(' / ')}; ~${whole(JOBS / median(plain.map((r) => r.claims)))} rows per claim`,
  );
  const floors = await repeat(runs, () => floorRun(serverUrl));
  report(
    'floor: bare claim + ack loop, this process, no worker',
    `${whole(median(floors))} jobs/s`,
    `runs ${floors.map(whole).join(' / ')}; 300 rows a claim, two loops`,
  );
  const rss = plain.map((r) => r.memory.rss / 1_048_576);
  report(
    'this (the worker) process at the end of the drain',
    `${median(rss).toFixed(1)} MB RSS`,
    `heap used ${median(plain.map((r) => r.memory.heapUsed / 1_048_576)).toFixed(1)} MB; RSS runs ${rss.map((m) => m.toFixed(0)).join(' / ')} MB`,
  );
  const safe = await repeat(runs, () =>
    drainRun(serverUrl, { holdTransaction: false, claimAhead: false }),
  );
  const safeRates = safe.map((r) => r.perSecond);
  report(
    'drain with claimAhead: false (claims only for free slots)',
    `${whole(median(safeRates))} jobs/s`,
    `runs ${safeRates.map(whole).join(' / ')}`,
  );
  const held = await repeat(runs, () => drainRun(serverUrl, { holdTransaction: true }));
  const heldRates = held.map((r) => r.perSecond);
  report(
    'drain, another session idle in transaction throughout',
    `${whole(median(heldRates))} jobs/s`,
    `runs ${heldRates.map(whole).join(' / ')}`,
  );

  console.log('\nSteps');
  const steps = await repeat(runs, () => stepOverhead(serverUrl));
  report(
    'step.run overhead (one stored step), median',
    `${median(steps.map((s) => s.median)).toFixed(2)} ms`,
    `target ≤ 0.5 ms; runs ${steps.map((s) => s.median.toFixed(2)).join(' / ')}`,
  );
}
