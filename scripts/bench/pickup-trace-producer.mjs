/**
 * A producer process of `pickup-trace.mjs`, spawned with an IPC channel. argv: <database url>.
 *
 * It enqueues through `@ultimat3/jobs-pg` as an app does (a pool of 10, a handle's `enqueue()`, the driver's group
 * commit), over an executor that notes when each enqueue statement was sent and answered, and which jobs it carried
 * (the `n` of each input). Messages in:
 * - `{ type: 'run', mode, count, intervalMs, startAt, base }`: `count` calls, call i at `startAt + i × intervalMs`
 *   (epoch ms; 0 apart: all at once), not awaited one by one. Mode `enqueue`: `enqueue({ n: base + i, t })`; mode
 *   `insert` / `insert-async`: the floor — a bare committed single-row insert into `bench_floor` on a pool of its own
 *   (synchronous commit on / off); mode `select`: a bare `select 1`. Answers `{ jobs }`, per call
 *   `{ n, call, sent, back }` (epoch ms; sent/back: the statement that carried it), and `{ lateMs }`.
 * - `{ type: 'stop' }`: closes and exits.
 */
import { jobs, jobsPg, pg, poolIdleMs, preciseNow } from './lib.mjs';

const [url] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Per job `n`: when the statement that carried it was sent and answered. */
let carried = new Map();

/** The `n` of every job input a statement's values carry (a JSON text, or JSON texts joined by line feeds). */
function jobNumbers(values) {
  const ns = [];
  for (const value of values) {
    const texts = Array.isArray(value) ? value : [value];
    for (const text of texts) {
      if (typeof text !== 'string' || !text.includes('"n":')) continue;
      for (const m of text.matchAll(/"n":(-?\d+)/g)) ns.push(Number(m[1]));
    }
  }
  return ns;
}

const pool = new pg.Pool({
  connectionString: url,
  max: 10,
  idleTimeoutMillis: poolIdleMs,
  application_name: 'trace-producer',
});
pool.on('error', () => {});
const inner = jobsPg.pgPoolExecutor(pool);
const executor = {
  shared: inner.shared,
  async query(text, values) {
    const sent = preciseNow();
    const result = await inner.query(text, values);
    const back = preciseNow();
    if (/insert into x_jobs/i.test(text))
      for (const n of jobNumbers(values)) carried.set(n, { sent, back });
    return result;
  },
};
const backend = jobsPg.postgresBackendOver(executor);
jobs.setJobsFacade(jobs.directJobsFacade({ driver: backend.driver }));
const handle = jobs.job({
  name: 'bench.trace',
  queue: 'trace',
  input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => undefined,
});

const floorPool = new pg.Pool({
  connectionString: url,
  max: 10,
  idleTimeoutMillis: poolIdleMs,
  application_name: 'trace-floor',
});
floorPool.on('error', () => {});

/**
 * One floor statement of `mode`, timed from send to answer: `select`, or the one-row insert — alone (`insert`,
 * `insert-async`), notifying in its commit when `n` is a multiple of 3 (`insert-notify`), or followed then by a
 * notification in a transaction of its own with `synchronous_commit` off (`insert-then-notify`; timed to the insert's
 * answer).
 */
async function floorCall(mode, n = 0) {
  const client = await floorPool.connect();
  try {
    const sync = mode === 'insert-async' ? 'off' : 'on';
    if (client.sync !== sync) {
      await client.query(`set synchronous_commit = ${sync}`);
      client.sync = sync;
    }
    const notifies = n % 3 === 0;
    const sent = preciseNow();
    if (mode === 'select') await client.query('select 1');
    else if (mode === 'insert-notify' && notifies)
      await client.query(
        `insert into bench_floor (v) select $1 where pg_notify('bench_floor', $1) is not null`,
        ['x'],
      );
    else await client.query('insert into bench_floor (v) values ($1)', ['x']);
    const back = preciseNow();
    if (mode === 'insert-then-notify' && notifies)
      await client.query(
        `select pg_notify('bench_floor', $1) where set_config('synchronous_commit', 'off', true) = 'off'`,
        ['x'],
      );
    return { sent, back };
  } finally {
    client.release();
  }
}

async function run({ mode, count, intervalMs, startAt, base }) {
  carried = new Map();
  const calls = [];
  const out = [];
  let lateMs = 0;
  for (let i = 0; i < count; i++) {
    const due = startAt + i * intervalMs;
    if (intervalMs > 0 && due > preciseNow()) await sleep(due - preciseNow());
    const n = base + i;
    const call = preciseNow();
    lateMs = Math.max(lateMs, call - due);
    if (mode === 'enqueue')
      calls.push(
        handle.enqueue({ n, t: call }).then(() => out.push({ n, call, ...carried.get(n) })),
      );
    else calls.push(floorCall(mode, n).then((times) => out.push({ n, call, ...times })));
  }
  await Promise.all(calls);
  return { jobs: out, lateMs };
}

process.on('message', async (message) => {
  if (message.type === 'run') process.send({ id: message.id, ...(await run(message)) });
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send({ id: message.id, us: user + system }); // this process's CPU so far, every thread (pickup-trace.mjs)
  }
  if (message.type === 'stop') {
    await pool.end();
    await floorPool.end();
    process.send({ id: message.id }, () => process.exit(0)); // exit once the answer is out
  }
});

// open the connections before anything is timed
await handle.enqueue({ n: -1 - process.pid, t: preciseNow() });
await Promise.all(['insert', 'insert-async', 'select'].map((mode) => floorCall(mode)));
process.send({ type: 'ready' });
