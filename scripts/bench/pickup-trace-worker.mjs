/**
 * The worker process of `pickup-trace.mjs`, spawned with an IPC channel. argv: <database url>.
 *
 * One `jobWorker` at concurrency 10 on queue `trace` with the cross-process wake and the hand-off, as
 * `postgresBackend({ url })` runs it (a pool of 10, `startWorkerWake` on a session of its own; BENCH_TRACE_HAND_OFF=0:
 * `startQueueWake`, the wake alone), over an executor that notes every claim: when it was sent and answered, how many
 * rows it took and which jobs. It also notes when each wake notification was heard, when each handed row was heard and
 * when each body started. Messages in: `{ type: 'collect' }` answers `{ bodies, wakes, sweeps, claims }` and empties them
 * (`bodies`: per job `{ n, body, claimSent, claimBack, claimRows, handed }`; `wakes`: epoch ms of each notification heard;
 * `sweeps`: of each sweep alone, a handed enqueue's announcement;
 * `claims`: per claim `{ sent, back, rows, full }`, full: `SQL_CLAIM` rather than `SQL_CLAIM_WAITING`);
 * `{ type: 'peek' }` answers `{ count }`; `{ type: 'stop' }` drains and exits.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { jobs, jobsPg, pg, poolIdleMs, preciseNow } from './lib.mjs';

const [url] = process.argv.slice(2);

let bodies = [];
let wakes = [];
/** Epoch ms of each sweep alone heard (a handed enqueue's announcement of its slot). */
let sweeps = [];
let claims = [];
/** Per job `n` a claim took: that claim. */
const claimOf = new Map();
/** Statements on the wire now, and how many of each kind were sent since the last collect. */
let onTheWire = 0;
let kinds = {};
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();

/** A statement's kind for the counts: its verb and the first table it names. */
function statementKind(text) {
  const verb =
    /\b(insert into|update|delete from|select)\b/i.exec(text)?.[1].toLowerCase() ?? 'other';
  const table = /\bx_\w+/.exec(text)?.[0] ?? '';
  return `${verb} ${table}`.trim();
}

const pool = new pg.Pool({
  connectionString: url,
  max: 10,
  idleTimeoutMillis: poolIdleMs,
  application_name: 'trace-worker',
});
pool.on('error', () => {});
const inner = jobsPg.pgPoolExecutor(pool);
const executor = {
  shared: inner.shared,
  async query(text, values) {
    const claim = text.includes("'claimed' as arm");
    const kind = claim ? 'claim' : statementKind(text);
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    const sent = preciseNow();
    const wire = onTheWire++;
    const waiting = pool.waitingCount;
    let result;
    try {
      result = await inner.query(text, values);
    } finally {
      onTheWire--;
    }
    if (!claim) return result;
    const taken = result.rows.filter((r) => r.arm === 'claimed');
    const record = {
      sent,
      back: preciseNow(),
      rows: taken.length,
      full: text.includes('recursive'),
      wire,
      waiting,
    };
    claims.push(record);
    for (const row of taken) if (typeof row.input?.n === 'number') claimOf.set(row.input.n, record);
    return result;
  },
};
const backend = jobsPg.postgresBackendOver(executor);
const handle = jobs.job({
  name: 'bench.trace',
  queue: 'trace',
  input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: ({ input }) => {
    const body = preciseNow();
    if (input.n < 0) return; // a producer's warm-up call
    const claim = claimOf.get(input.n);
    claimOf.delete(input.n);
    const handed = handedAt.get(input.n);
    handedAt.delete(input.n);
    bodies.push({
      n: input.n,
      body,
      claimSent: claim?.sent,
      claimBack: claim?.back,
      claimRows: claim?.rows,
      handed,
    });
  },
});
const registry = new jobs.JobRegistry();
registry.register(handle);
const worker = jobs.jobWorker({
  driver: backend.driver,
  registry,
  concurrency: 10,
  events: backend.events,
});
/** Per job `n` handed to the worker by its enqueue: when its row was heard. */
const handedAt = new Map();
const listener = () => new pg.Client({ connectionString: url, application_name: 'trace-wake' });
const target = {
  signalEnqueued(queue, sweepAfterMs) {
    if (queue === 'trace') wakes.push(preciseNow());
    worker.signalEnqueued(queue, sweepAfterMs);
  },
  signalSweep(queue, sweepAfterMs) {
    if (queue === 'trace') sweeps.push(preciseNow());
    worker.signalSweep(queue, sweepAfterMs);
  },
  setWakeLive: (live) => worker.setWakeLive(live),
  handOff: {
    ...worker.handOff,
    takeClaimed(rows) {
      const at = preciseNow();
      for (const row of rows) if (typeof row.input?.n === 'number') handedAt.set(row.input.n, at);
      worker.handOff.takeClaimed(rows);
    },
  },
};
// as postgresBackend({ url }).startWake runs it: the wake and the hand-off (BENCH_TRACE_HAND_OFF=0: the wake alone)
const wake =
  process.env.BENCH_TRACE_HAND_OFF === '0'
    ? jobsPg.startQueueWake({ listener, executor, target })
    : jobsPg.startWorkerWake({ listener, executor, target });

process.on('message', async (message) => {
  if (message.type === 'peek') process.send({ id: message.id, count: bodies.length });
  if (message.type === 'collect') {
    const delay = {
      p50: loopDelay.percentile(50) / 1e6,
      p99: loopDelay.percentile(99) / 1e6,
      max: loopDelay.max / 1e6,
    };
    process.send({ id: message.id, bodies, wakes, sweeps, claims, kinds, delay });
    bodies = [];
    wakes = [];
    sweeps = [];
    claims = [];
    kinds = {};
    loopDelay.reset();
  }
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send({ id: message.id, us: user + system }); // this process's CPU so far, every thread (pickup-trace.mjs)
  }
  if (message.type === 'stop') {
    await worker.stop();
    await wake.stop();
    await pool.end();
    process.send({ id: message.id }, () => process.exit(0)); // exit once the answer is out
  }
});

const live = await wake.ready();
await worker.start();
process.send({ type: 'ready', live });
