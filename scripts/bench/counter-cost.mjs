/**
 * What moving the counters in the settling statement costs: the drain of `drain.mjs`, interleaved A/B in one process
 * against one server — A with `SQL_ACK` as shipped (the `x_job_counters` upsert in its data-modifying CTE), B with the
 * same ack minus that CTE. The machine is shared, so absolute figures are noise; the ratio of the medians is the figure.
 */
import {
  fillQueue,
  freshDatabase,
  jobs,
  jobsPg,
  median,
  noopJob,
  preciseNow,
  registryOf,
  report,
  sleep,
  whole,
} from './lib.mjs';

const JOBS = Number(process.env.BENCH_COUNTER_JOBS ?? 20_000);
const PAIRS = Number(process.env.BENCH_COUNTER_PAIRS ?? 5);
const CONCURRENCY = 10;

/** `SQL_ACK` without the counters: the statement as it was before they moved in it. */
const ACK_WITHOUT_COUNTERS = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
settled as (
  update x_jobs j set
    state = 'done',
    worker_id = null,
    claim = null,
    lease_expires_at = null,
    finished_at = k.now,
    updated_at = k.now
  from clock k
  where j.id = any($2::uuid[])
    and coalesce(j.state, '') = 'running'
    and j.worker_id = any($3::text[])
    and ($4::jsonb ->> j.id::text) = j.claim::text
  returning j.id
)
select u.id from unnest($2::uuid[]) as u(id)
where not exists (select 1 from settled s where s.id = u.id)
`;

const job = noopJob('bench.counters', 'counters');

/** `executor` running the counter-less ack in place of `SQL_ACK`. */
function withoutCounters(executor) {
  const swapped = Object.create(executor);
  swapped.query = (text, values) =>
    text === jobsPg.SQL_ACK
      ? executor.query(ACK_WITHOUT_COUNTERS, values.slice(0, 4))
      : executor.query(text, values);
  return swapped;
}

async function drain(serverUrl, counters) {
  const db = await freshDatabase(serverUrl);
  try {
    await fillQueue(
      jobsPg.postgresJobDriver({ executor: db.executor }),
      'counters',
      job.name,
      JOBS,
    );
    await db.pool.query('vacuum analyze x_jobs');
    const executor = counters ? db.executor : withoutCounters(db.executor);
    const worker = jobs.jobWorker({
      driver: jobsPg.postgresJobDriver({ executor }),
      registry: registryOf(job),
      concurrency: CONCURRENCY,
    });
    const started = preciseNow();
    await worker.start();
    while (worker.stats().completed < JOBS) await sleep(2);
    const elapsed = preciseNow() - started;
    await worker.stop();
    const { rows } = await db.pool.query(
      'select coalesce(sum(done), 0)::int as done from x_job_counters',
    );
    if (counters && rows[0].done !== JOBS)
      throw new Error(`counters say ${rows[0].done} done, rows ${JOBS}`);
    return (JOBS * 1000) / elapsed;
  } finally {
    await db.drop();
  }
}

export async function benchCounterCost(serverUrl) {
  console.log(
    `\nCounter cost: ${whole(JOBS)} no-op jobs drained, ${PAIRS} interleaved pairs (with / without counters)`,
  );
  const withC = [];
  const without = [];
  for (let i = 0; i < PAIRS; i++) {
    // alternate which goes first, so a drift in the machine's load does not favour one side
    if (i % 2 === 0) {
      withC.push(await drain(serverUrl, true));
      without.push(await drain(serverUrl, false));
    } else {
      without.push(await drain(serverUrl, false));
      withC.push(await drain(serverUrl, true));
    }
  }
  const ratio = median(withC) / median(without);
  report(
    'drain with counters',
    `${whole(median(withC))} jobs/s`,
    `runs ${withC.map(whole).join(' / ')}`,
  );
  report(
    'drain without counters',
    `${whole(median(without))} jobs/s`,
    `runs ${without.map(whole).join(' / ')}`,
  );
  report(
    'counters cost',
    `${((1 - ratio) * 100).toFixed(1)} %`,
    'of drain throughput (budget: 5 %)',
  );
}
