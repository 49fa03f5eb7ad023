/** Enqueue throughput: one row per statement (serial, and 20 in flight), and batches of 100 and 1,000 rows. */
import {
  freshDatabase,
  jobsPg,
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
      `target ≥ 2,000; runs ${serial.map(whole).join(' / ')}`,
    );
    const parallel = await repeat(runs, () => rate(8_000, 20, one));
    report(
      'enqueue(), 20 in flight',
      `${whole(median(parallel))} jobs/s`,
      `target ≥ 6,000; runs ${parallel.map(whole).join(' / ')}`,
    );

    for (const size of [100, 1_000]) {
      const batches = size === 100 ? 200 : 40;
      const results = await repeat(runs, async () => {
        const requests = Array.from({ length: batches }, () =>
          Array.from({ length: size }, () => request('bulk', 'bench.noop')),
        );
        const started = preciseNow();
        for (const batch of requests) await driver.enqueueMany(batch);
        return (batches * size * 1000) / (preciseNow() - started);
      });
      report(
        `enqueueMany(), ${whole(size)} rows per statement`,
        `${whole(median(results))} rows/s`,
        `target ≥ 100,000; runs ${results.map(whole).join(' / ')}`,
      );
    }
  } finally {
    await db.drop();
  }
}
