/** Enqueue throughput: one row per statement (serial, and 20 in flight), and batches of 100 and 1,000 rows. */
import { cpuOf, serverOf } from './cpu-use.mjs';
import {
  freshDatabase,
  jobs,
  jobsPg,
  noopJob,
  median,
  preciseNow,
  repeat,
  report,
  request,
  whole,
} from './lib.mjs';

/** Runs `total` calls of `fn`, `inFlight` at a time; answers calls per second. */
async function rate(total, inFlight, fn) {
  let next = 0;
  const started = preciseNow();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        next++;
        await fn();
      }
    }),
  );
  return (total * 1000) / (preciseNow() - started);
}

/** The floor under any enqueue: committed single-row inserts into a two-column table, no index but the key. */
async function rawInserts(db, total, inFlight) {
  await db.pool.query('create table if not exists bench_raw (id bigserial primary key, v text)');
  return rate(total, inFlight, () => db.pool.query('insert into bench_raw (v) values ($1)', ['x']));
}

/**
 * The floor under a batch enqueue: the same rows put into x_jobs by a bare `insert … select from unnest(…)` — no
 * conflict handling, no answer per row, no wake — with its parameters shaped as the driver shapes them (array
 * literals, the inputs one per line). What the table and its indexes cost on this machine.
 */
const BARE_BATCH_INSERT = `
insert into x_jobs (
  id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
  max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent
)
select r.id, r.run_id, r.name, r.queue, r.input::json, r.idempotency_key, r.tenant_id, r.enqueued_by, 'ready', 0,
  r.max_attempts, r.priority, r.run_at, now(), now(), r.concurrency_key, r.traceparent
from unnest(
  $1::uuid[], $2::uuid[], $3::text[], $4::text[], string_to_array($5::text, E'\\n'), $6::text[], $7::text[],
  $8::text[], $9::timestamptz[], $10::int[], $11::int[], $12::text[], $13::text[]
) as r(
  id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by,
  run_at, max_attempts, priority, concurrency_key, traceparent
)`;

/** `values` as a PostgreSQL array literal, every element quoted. */
function literal(values) {
  const element = (v) => (v === null ? 'NULL' : `"${String(v).replace(/["\\]/g, '\\$&')}"`);
  return `{${values.map(element).join(',')}}`;
}

/** `requests` as the parameters of {@link BARE_BATCH_INSERT}. */
function columnsOf(requests) {
  const column = (pick) => literal(requests.map(pick));
  return [
    column((r) => r.id),
    column((r) => r.runId),
    column((r) => r.name),
    column((r) => r.queue),
    requests.map((r) => JSON.stringify(r.input)).join('\n'),
    column((r) => r.idempotencyKey),
    column((r) => r.tenantId),
    column((r) => r.enqueuedBy),
    column((r) => new Date(r.runAt).toISOString()),
    column((r) => r.maxAttempts),
    column((r) => r.priority),
    column((r) => r.concurrencyKey),
    column((r) => r.traceparent),
  ];
}

/** Rows a second of `batches` batches of `size` rows, each put in by `insert`, one statement after another. */
async function batchRate(size, batches, insert) {
  const requests = Array.from({ length: batches }, () =>
    Array.from({ length: size }, () => request('bulk', 'bench.noop')),
  );
  const started = preciseNow();
  for (const batch of requests) await insert(batch);
  return (batches * size * 1000) / (preciseNow() - started);
}

/**
 * `handle.enqueueMany()` of 1,000 inputs, as an app calls it: each input through its schema, the ids minted, the
 * value contract, the driver's statement. Rows a second, and the CPU a batch costs in this process and in the server
 * (`cpu-use.mjs`): the figures that hold still on a loaded machine.
 */
async function frontEndBatches(db, driver, runs) {
  const handle = noopJob('bench.front', 'bulk');
  const uninstall = jobs.setJobsFacade(jobs.directJobsFacade({ driver }));
  const server = await serverOf(db.pool);
  let n = 0;
  const batch = () => handle.enqueueMany(Array.from({ length: 1_000 }, () => ({ n: n++ })));
  try {
    for (let i = 0; i < 5; i++) await batch(); // warm the schema, the pool and its prepared statements
    const batches = 40;
    const measured = await repeat(runs, async () => {
      const started = preciseNow();
      const cpu = await cpuOf(server, async () => {
        for (let i = 0; i < batches; i++) await batch();
      });
      return { rate: (batches * 1_000 * 1_000) / (preciseNow() - started), ...cpu };
    });
    const perBatch = (ms) => (ms === undefined ? '?' : (ms / batches).toFixed(1));
    report(
      'handle.enqueueMany(), 1,000 inputs per call',
      `${whole(median(measured.map((m) => m.rate)))} rows/s`,
      `CPU ms a batch, process + server: ${measured.map((m) => `${perBatch(m.processMs)} + ${perBatch(m.serverMs)}`).join(' / ')}`,
    );
  } finally {
    uninstall();
  }
}

export async function benchEnqueue(serverUrl, runs) {
  console.log(
    '\nEnqueue (fsync and synchronous_commit on: every statement waits for its WAL flush)',
  );
  const db = await freshDatabase(serverUrl);
  try {
    const driver = jobsPg.postgresJobDriver({ executor: db.executor });
    const one = () => driver.enqueue(request('bench', 'bench.noop'));
    await rate(200, 20, one); // warm the pool and its prepared statements

    const rawSerial = median(await repeat(runs, () => rawInserts(db, 1_000, 1)));
    const rawParallel = median(await repeat(runs, () => rawInserts(db, 4_000, 20)));
    report('floor: bare single-row insert, serial', `${whole(rawSerial)} rows/s`);
    report('floor: bare single-row insert, 20 in flight', `${whole(rawParallel)} rows/s`);

    const serial = await repeat(runs, () => rate(2_000, 1, one));
    report(
      'enqueue(), serial',
      `${whole(median(serial))} jobs/s`,
      `target ≥ 2,200; runs ${serial.map(whole).join(' / ')}`,
    );
    const parallel = await repeat(runs, () => rate(8_000, 20, one));
    report(
      'enqueue(), 20 in flight',
      `${whole(median(parallel))} jobs/s`,
      `target ≥ 15,000; runs ${parallel.map(whole).join(' / ')}`,
    );

    for (const size of [100, 1_000]) {
      const batches = size === 100 ? 200 : 40;
      // interleaved, so the floor and the driver meet the same moods of the disk
      const pairs = await repeat(runs, async () => [
        await batchRate(size, batches, (batch) =>
          db.executor.query(BARE_BATCH_INSERT, columnsOf(batch)),
        ),
        await batchRate(size, batches, (batch) => driver.enqueueMany(batch)),
      ]);
      const bare = pairs.map(([floor]) => floor);
      const results = pairs.map(([, enqueued]) => enqueued);
      report(
        `floor: bare insert from unnest, ${whole(size)} rows per statement`,
        `${whole(median(bare))} rows/s`,
        `runs ${bare.map(whole).join(' / ')}`,
      );
      report(
        `enqueueMany(), ${whole(size)} rows per statement`,
        `${whole(median(results))} rows/s`,
        `target ≥ 110,000; runs ${results.map(whole).join(' / ')}`,
      );
    }

    await frontEndBatches(db, driver, runs);

    // the conflict path: one request of each batch names a key a stored row holds, so the optimistic insert fails
    // and the batch is judged by the conflict-tolerant statements
    const held = request('bulk', 'bench.noop');
    await driver.enqueue(held);
    const conflicted = await repeat(runs, () =>
      batchRate(1_000, 20, (batch) =>
        driver.enqueueMany([
          ...batch.slice(1),
          { ...batch[0], idempotencyKey: held.idempotencyKey },
        ]),
      ),
    );
    report(
      'enqueueMany(), 1,000 rows, one of them deduped',
      `${whole(median(conflicted))} rows/s`,
      `runs ${conflicted.map(whole).join(' / ')}`,
    );
  } finally {
    await db.drop();
  }
}
