/**
 * Where a serial PostgreSQL enqueue's time goes beside its floor, op by op: the floor (a bare committed `INSERT` of
 * one bigint into a one-column table, as `bench:peers` prints it), `driver.enqueue()` of a request built beforehand and
 * `handle.enqueue()` take turns ONE operation at a time (the order rotating every round), so every side meets the
 * same moment of the disk's and the machine's load — on this shared machine a WAL flush takes 0.3 ms one minute and
 * 3 ms the next, which makes passes run one after another (`enqueue-floors.mjs`, `bench:peers`) hard to compare.
 *
 * Each side has a connection of its own (a pool of one: a serial caller's pool of 10 hands out the same connection
 * every time), so the backend CPU of each side is read apart, from its backend's `/proc/<pid>/schedstat` (user and
 * kernel time, the WAL flush's own system call included); the client CPU of each operation from `process.cpuUsage()`
 * around it. Every figure is printed with `synchronous_commit` on (the default: one WAL flush a commit) and off (the
 * same statements without waiting for the flush): the difference between the two is what waiting for the flush costs,
 * the rest is CPU.
 *
 *   node scripts/bench/enqueue-serial-legs.mjs     # needs `npm run build`; an embedded PostgreSQL (reads /proc)
 *
 * BENCH_LEGS_OPS (default 1,500) operations of each side per mode, after 500 untimed; BENCH_LEGS_SYNC (default
 * on,off) the modes.
 */
import { readFileSync } from 'node:fs';
import { startPostgres } from './embedded-pg.mjs';
import { freshDatabase, jobs, jobsPg, median, pg } from './lib.mjs';
import { enqueueRequest } from './requests.mjs';

const OPS = Number(process.env.BENCH_LEGS_OPS ?? 1_500);
const WARM = 500;
const MODES = (process.env.BENCH_LEGS_SYNC ?? 'on,off').split(',');
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' / ');

const server = await startPostgres({ log: (m) => console.log(m) });
if (!server.embedded) {
  console.error('enqueue-serial-legs reads the backends from /proc: run it without DATABASE_URL.');
  process.exit(1);
}
const db = await freshDatabase(server.url, { poolSize: 1 });
await db.pool.query('create table floor_jobs (n bigint)');

/** A pool of one connection, and its backend's pid. */
async function onePool() {
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  pool.on('error', () => {});
  const { rows } = await pool.query('select pg_backend_pid() as pid');
  return { pool, pid: rows[0].pid };
}

/** CPU nanoseconds the process has run (user and kernel), from its schedstat. */
const cpuNs = (pid) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

let seq = 0;
const floor = await onePool();
const driverSide = await onePool();
const handleSide = await onePool();
const driver = jobsPg.postgresJobDriver({ executor: jobsPg.pgPoolExecutor(driverSide.pool) });
jobs.setJobsFacade(
  jobs.directJobsFacade({
    driver: jobsPg.postgresJobDriver({ executor: jobsPg.pgPoolExecutor(handleSide.pool) }),
  }),
);
const handle = jobs.job({
  name: 'bench.serial',
  queue: 'serial',
  input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => undefined,
});
const INSERT = { name: 'legs_floor', text: 'insert into floor_jobs (n) values ($1)' };

/** The sides: a name, its connection, and one operation (`input` built before the clock starts). */
const sides = [
  {
    name: 'floor: bare INSERT',
    ...floor,
    input: () => [seq++],
    run: (values) => floor.pool.query({ ...INSERT, values }),
  },
  {
    name: 'driver.enqueue',
    ...driverSide,
    input: () =>
      enqueueRequest(jobs.uuidv7, { queue: 'serial', name: 'bench.serial', input: { n: seq++ } }),
    run: (request) => driver.enqueue(request),
  },
  {
    name: 'handle.enqueue',
    ...handleSide,
    input: () => ({ n: seq++, t: 0 }),
    run: (input) => handle.enqueue(input),
  },
];

/** Every side's figures in one mode: ops alternate between the sides, one at a time. */
async function measure(mode) {
  for (const side of sides) await side.pool.query(`set synchronous_commit = ${mode}`);
  for (let i = 0; i < WARM; i++) for (const side of sides) await side.run(side.input());
  const figures = sides.map(() => ({ wall: [], client: 0 }));
  const backendBefore = sides.map((side) => cpuNs(side.pid));
  for (let i = 0; i < OPS; i++) {
    for (let k = 0; k < sides.length; k++) {
      const at = (i + k) % sides.length;
      const side = sides[at];
      const input = side.input();
      const cpu = process.cpuUsage();
      const started = performance.now();
      await side.run(input);
      figures[at].wall.push((performance.now() - started) * 1_000);
      const used = process.cpuUsage(cpu);
      figures[at].client += used.user + used.system;
    }
  }
  return sides.map((side, k) => ({
    p50: median(figures[k].wall),
    mean: figures[k].wall.reduce((a, b) => a + b, 0) / OPS,
    client: figures[k].client / OPS,
    backend: (cpuNs(side.pid) - backendBefore[k]) / 1_000 / OPS,
  }));
}

console.log(`load average ${load()} at start; ${OPS} operations a side a mode, taking turns`);
const rows = [];
for (const mode of MODES) {
  const results = await measure(mode);
  results.forEach((r, k) => rows.push({ mode, side: sides[k].name, ...r, floor: results[0].p50 }));
  console.log(`synchronous_commit ${mode} done (load average ${load()})`);
}
console.log(
  '\n| synchronous_commit | side | p50 µs | mean µs | p50 ÷ floor p50 | client CPU µs | backend CPU µs |',
);
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) {
  const cells = [r.p50, r.mean, r.p50 / r.floor, r.client, r.backend].map((v, i) =>
    v.toFixed(i === 2 ? 2 : 0),
  );
  console.log(`| ${r.mode} | ${r.side} | ${cells.join(' | ')} |`);
}
console.log(`\nload average ${load()} at the end`);
for (const side of sides) await side.pool.end();
await db.drop();
await server.stop();
