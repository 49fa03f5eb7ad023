#!/usr/bin/env node
/**
 * What one `step.run` costs beside a bare committed insert, interleaved in one job body on one server so both meet
 * the same disk and load: STEP_COUNT times (default 400) a `step.run` whose function returns a number at once (the
 * durable write is the cost), then a bare committed `INSERT` of a row of the same shape (uuid, text name, small json;
 * a table keyed like the steps table) on a held connection, then the same insert through the pool executor the driver
 * uses. Prints per operation the median wall time and this process's CPU (`process.cpuUsage` around the call: the
 * JavaScript and the syscalls on the path), and the `step.run` path split into legs:
 *
 *   step.run -> driver save      the step API: name check, the stored read, the function, its output's JSON form
 *   save -> executor             the driver's fence arguments
 *   executor -> socket write     the pool checkout and the protocol messages
 *   write -> data                the wire, the statement, its commit (one WAL flush), the answer
 *   data -> executor answered    the answer parsed, the connection returned to the pool
 *   executor -> step.run answered
 *
 *   npm run build && node scripts/bench/step-cost.mjs
 */
import net from 'node:net';
import { startPostgres } from './embedded-pg.mjs';
import {
  freshDatabase,
  jobs,
  jobsPg,
  median,
  noopJob,
  preciseNow,
  registryOf,
  request,
  sleep,
} from './lib.mjs';

const STEPS = Number(process.env.STEP_COUNT ?? 400);
const BARE = 'insert into bare_steps (job_id, name, output) values ($1, $2, $3)';

// the first socket write and the first data heard since the stamps were zeroed (one step at a time)
const at = { run: 0, save: 0, exec: 0, write: 0, data: 0, answered: 0, saved: 0 };
const { _writeGeneric: writeGeneric, emit } = net.Socket.prototype;
net.Socket.prototype._writeGeneric = function (...args) {
  if (!at.write) at.write = preciseNow();
  return writeGeneric.apply(this, args);
};
net.Socket.prototype.emit = function (event, ...args) {
  if (event === 'data' && !at.data) at.data = preciseNow();
  return emit.call(this, event, ...args);
};

/** Wall ms and process CPU µs of one awaited call. */
async function timed(into, call) {
  const cpu = process.cpuUsage();
  const started = preciseNow();
  await call();
  const used = process.cpuUsage(cpu);
  into.push({ ms: preciseNow() - started, cpu: used.user + used.system });
}

let bench;
const stepJob = noopJob('bench.steps', 'steps', async ({ step }) => {
  for (let i = 0; i < STEPS; i++) {
    for (const k of Object.keys(at)) at[k] = 0;
    at.run = preciseNow();
    await timed(bench.step, () => step.run(`s${i}`, () => i));
    const end = preciseNow();
    bench.legs.push({
      'step.run -> driver save': at.save - at.run,
      'save -> executor': at.exec - at.save,
      'executor -> socket write': at.write - at.exec,
      'write -> data': at.data - at.write,
      'data -> executor answered': at.answered - at.data,
      'executor -> step.run answered': end - at.answered,
    });
    await timed(bench.bare, () =>
      bench.client.query({ name: 'bare-step', text: BARE, values: [bench.id, `s${i}`, String(i)] }),
    );
    await timed(bench.pool, () => bench.db.executor.query(BARE, [bench.id, `p${i}`, String(i)]));
  }
  bench.done = true;
});

const server = await startPostgres();
const db = await freshDatabase(server.url, { poolSize: 4 });
try {
  await db.pool.query(
    'create table bare_steps (job_id uuid, name text, output json, primary key (job_id, name))',
  );
  const client = await db.pool.connect();
  bench = {
    db,
    client,
    id: crypto.randomUUID(),
    step: [],
    bare: [],
    pool: [],
    legs: [],
    done: false,
  };
  const executor = {
    shared: db.executor.shared,
    async query(...args) {
      if (!at.exec) at.exec = preciseNow();
      const result = await db.executor.query(...args);
      if (!at.answered) at.answered = preciseNow();
      return result;
    },
  };
  const driver = jobsPg.postgresJobDriver({ executor });
  const save = driver.steps.save.bind(driver.steps);
  driver.steps.save = (...args) => {
    at.save = preciseNow();
    return save(...args);
  };
  const worker = jobs.jobWorker({ driver, registry: registryOf(stepJob), concurrency: 1 });
  await worker.start();
  await driver.enqueue(request('steps', 'bench.steps', { n: 1 }));
  worker.signalEnqueued('steps');
  while (!bench.done) await sleep(5);
  await worker.stop();
  client.release();
  // the first step also reads the stored steps: left out
  const warm = (xs) => xs.slice(1);
  const row = (label, xs) =>
    console.log(
      `${label.padEnd(32)} ${median(warm(xs).map((x) => x.ms)).toFixed(3)} ms, ${median(warm(xs).map((x) => x.cpu)).toFixed(0)} µs CPU`,
    );
  console.log(`step-cost: ${STEPS} of each, interleaved (medians)`);
  row('step.run', bench.step);
  row('bare committed insert', bench.bare);
  row('the same through the executor', bench.pool);
  console.log(
    `step.run ÷ bare insert: ${(median(warm(bench.step).map((x) => x.ms)) / median(warm(bench.bare).map((x) => x.ms))).toFixed(2)}`,
  );
  for (const leg of Object.keys(bench.legs[0]))
    console.log(`  ${leg.padEnd(30)} ${median(warm(bench.legs).map((l) => l[leg])).toFixed(3)} ms`);
} finally {
  await db.drop();
  await server.stop();
}
