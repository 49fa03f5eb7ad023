/**
 * A serial PostgreSQL enqueue, taken apart: each pass runs `BENCH_OPS` operations one after another on a pool of 10
 * (as `postgresBackend` opens at its defaults), after `BENCH_WARM` untimed ones, and the passes are interleaved over
 * `BENCH_ROUNDS` rounds so every figure of a round shares the machine's load. The passes, cheapest first:
 *
 * - `select 1`: a bare round trip, no commit;
 * - `bare insert`: one bigint into a one-column table, committed (the floor bench:peers prints);
 * - `row insert`: a plain INSERT of our row into `x_jobs` (its indexes, no dedupe, no wake);
 * - `enqueue statement`: `SQL_ENQUEUE` as the driver sends it, its parameters built beforehand;
 * - `insert statement`: `SQL_ENQUEUE_INSERT`, the single enqueue's fast path, where the checkout has it;
 * - `driver.enqueue`: the driver's call with a request built beforehand;
 * - `driver, deduped`: the same call for requests whose key a live row holds (each answers that row);
 * - `handle.enqueue`: what an app calls.
 *
 * For each: operations a second, client CPU (process.cpuUsage), server CPU (every process of the embedded server:
 * backends, WAL writer; read from /proc, so only for an embedded server), round trips (ReadyForQuery messages the
 * pool's connections received), statements (pg_stat_statements calls), WAL records / bytes / full-page images
 * (pg_walinspect over the pass's WAL) — all a job. `BENCH_WAL_DETAIL=1` adds, from pg_walinspect, the WAL of 200
 * enqueue statements by resource manager, record type and relation. `BENCH_SEED_ROWS=200000` first fills `x_jobs`
 * with that many finished rows of the same name and queue and analyzes it (a busy table's statistics, under which the
 * plan cache may choose custom plans). The load average is printed beside each round.
 *
 *   node scripts/bench/enqueue-floors.mjs            # reads libs/*\/dist of this checkout: npm run build first
 */
import { readFileSync } from 'node:fs';
import { serverMs, serverOf } from './cpu-use.mjs';
import { startPostgres } from './embedded-pg.mjs';
import { freshDatabase, jobs, jobsPg, median, pg } from './lib.mjs';
import { enqueueRequest } from './requests.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OPS = Number(process.env.BENCH_OPS ?? 2_000);
const WARM = Number(process.env.BENCH_WARM ?? 300);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

const server = await startPostgres({ log: (m) => console.log(m) });
const db = await freshDatabase(server.url, { poolSize: 10 });
let roundTrips = 0;
const pool = new pg.Pool({ connectionString: db.url, max: 10 });
pool.on('error', () => {});
pool.on('connect', (client) => client.connection.on('readyForQuery', () => roundTrips++));
const admin = new pg.Client({ connectionString: db.url });
await admin.connect();
await admin.query('create extension if not exists pg_stat_statements');
await admin.query('create extension if not exists pg_walinspect');
await admin.query('create table floor_jobs (n bigint)');
/** BENCH_SEED_ROWS finished rows of the pass's job name, analyzed: the statistics a busy queue's table has. */
const SEED = Number(process.env.BENCH_SEED_ROWS ?? 0);
if (SEED > 0) {
  await admin.query(
    `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, state, max_attempts, run_at, created_at,
       updated_at, finished_at)
     select gen_random_uuid(), gen_random_uuid(), 'bench.serial', 'serial', '{}', 'seed:' || g, 'done', 3, now(),
       now(), now(), now()
     from generate_series(1, $1::int) g`,
    [SEED],
  );
  await admin.query('analyze x_jobs');
}

/** The embedded server's postmaster, found from this session's backend; undefined when the server is not ours. */
const postmaster = server.embedded ? await serverOf(admin) : undefined;
/** CPU ms of the server's processes (the postmaster's children) so far; NaN when the server is not ours to read. */
const serverCpuMs = () => (postmaster === undefined ? Number.NaN : serverMs(postmaster));

/**
 * What the server did so far. WAL from the flushed position and pg_walinspect (pg_stat_wal and pg_stat_io are flushed
 * by each backend at most once a second: too late for a pass); statements from pg_stat_statements, which counts each
 * statement as it ends.
 */
async function counters() {
  const { rows } = await admin.query(
    `select (select coalesce(sum(calls), 0) from pg_stat_statements s join pg_database d on d.oid = s.dbid
              where d.datname = current_database() and s.query not like '%pg_stat%'
                and s.query not like '%wal_flush_lsn%') as calls,
            pg_current_wal_flush_lsn() as lsn`,
  );
  return {
    calls: Number(rows[0].calls),
    lsn: rows[0].lsn,
    trips: roundTrips,
    server: serverCpuMs(),
    client: process.cpuUsage(),
    at: performance.now(),
  };
}

/** WAL records, bytes and bytes of full-page images between two insert positions. */
async function walBetween(start, end) {
  if (start === end) return { records: 0, fpi: 0, bytes: 0 };
  const { rows } = await admin.query(
    `select coalesce(sum(count), 0) as records, coalesce(sum(fpi_size), 0) as fpi,
            pg_wal_lsn_diff($2, $1) as bytes
     from pg_get_wal_stats($1, $2)`,
    [start, end],
  );
  return {
    records: Number(rows[0].records),
    fpi: Number(rows[0].fpi),
    bytes: Number(rows[0].bytes),
  };
}

const executor = jobsPg.pgPoolExecutor(pool);
const driver = jobsPg.postgresJobDriver({ executor });
jobs.setJobsFacade(jobs.directJobsFacade({ driver }));
const handle = jobs.job({
  name: 'bench.serial',
  queue: 'serial',
  input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => undefined,
});
let seq = 0;
const requestOf = () =>
  enqueueRequest(jobs.uuidv7, {
    queue: 'serial',
    name: 'bench.serial',
    input: { n: seq++, t: 0 },
  });
/** `SQL_ENQUEUE`'s parameters for a request, as the driver builds them (the database's clock). */
const paramsOf = (r) => jobsPg.singleEnqueueParams(r, null);
const ROW_INSERT = `insert into x_jobs (id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by,
  state, attempt, max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent,
  cross_tenant_reason)
  values ($2::uuid, $3::uuid, $4::text, $5::text, $6::json, $7::text, $8::text, $9::text, 'ready', 0, $11::int,
  $12::int, $10::timestamptz, coalesce($1::timestamptz, now()), coalesce($1::timestamptz, now()), $13::text,
  $14::text, $15::text)`;

/** Each pass: `prepare(n)` builds its n inputs untimed, `run(input)` is one timed operation. */
const passes = [
  ['select 1', () => pool.query({ name: 'f_select_1', text: 'select 1' })],
  [
    'bare insert',
    () =>
      pool.query({ name: 'f_insert', text: 'insert into floor_jobs values ($1)', values: [seq++] }),
  ],
  ['row insert', (p) => pool.query({ name: 'f_row', text: ROW_INSERT, values: p }), paramsOf],
  ['enqueue statement', (p) => executor.query(jobsPg.SQL_ENQUEUE, p), paramsOf],
  // the single enqueue's fast path, in a checkout that has it
  ...(jobsPg.SQL_ENQUEUE_INSERT === undefined
    ? []
    : [['insert statement', (p) => executor.query(jobsPg.SQL_ENQUEUE_INSERT, p), paramsOf]]),
  ['driver.enqueue', (r) => driver.enqueue(r), (r) => r],
  // every request meets the live row holding its key, and answers it
  ['driver, deduped', (r) => driver.enqueue(r), (r) => ({ ...r, idempotencyKey: 'held' })],
  ['handle.enqueue', () => handle.enqueue({ n: seq++, t: 0 })],
];
await driver.enqueue({ ...requestOf(), idempotencyKey: 'held' });

async function pass([, run, shape]) {
  const inputs = (n) => Array.from({ length: n }, () => (shape ? shape(requestOf()) : undefined));
  for (const input of inputs(WARM)) await run(input);
  const timed = inputs(OPS);
  const before = await counters();
  for (const input of timed) await run(input);
  const after = await counters();
  const cpu = process.cpuUsage(before.client);
  const wal = await walBetween(before.lsn, after.lsn);
  return {
    perSecond: (OPS * 1_000) / (after.at - before.at),
    clientUs: (cpu.user + cpu.system) / OPS,
    serverUs: ((after.server - before.server) * 1_000) / OPS,
    trips: (after.trips - before.trips - 1) / OPS, // less the counters' own read
    statements: (after.calls - before.calls) / OPS,
    records: wal.records / OPS,
    bytes: wal.bytes / OPS,
    fpi: wal.fpi / OPS,
  };
}

const results = new Map(passes.map(([name]) => [name, []]));
for (let round = 1; round <= ROUNDS; round++) {
  console.log(`round ${round} of ${ROUNDS} (load average ${load()})`);
  for (const p of passes) {
    const r = await pass(p);
    results.get(p[0]).push(r);
    console.log(`  ${p[0].padEnd(18)} ${Math.round(r.perSecond)}/s`);
  }
}

const fields = [
  ['jobs/s', 'perSecond', 0],
  ['client µs', 'clientUs', 0],
  ['server µs', 'serverUs', 0],
  ['round trips', 'trips', 2],
  ['statements', 'statements', 2],
  ['WAL records', 'records', 2],
  ['WAL bytes', 'bytes', 0],
  ['FPI bytes', 'fpi', 0],
];
console.log(`\n| pass (median of ${ROUNDS}; a job) | ${fields.map(([f]) => f).join(' | ')} |`);
console.log(`|---|${fields.map(() => '---').join('|')}|`);
for (const [name, rs] of results) {
  const cells = fields.map(([, key, digits]) => median(rs.map((r) => r[key])).toFixed(digits));
  console.log(`| ${name} | ${cells.join(' | ')} |`);
}

if (process.env.BENCH_WAL_DETAIL === '1') {
  const lsn = async () => (await admin.query('select pg_current_wal_insert_lsn() as l')).rows[0].l;
  const start = await lsn();
  for (let i = 0; i < 200; i++) await executor.query(jobsPg.SQL_ENQUEUE, paramsOf(requestOf()));
  const end = await lsn();
  const { rows } = await admin.query(
    `select resource_manager as rm, record_type as type, coalesce(c.relname, '') as rel,
            count(*) as n, sum(record_length)::float / 200 as bytes
     from pg_get_wal_records_info($1, $2) w
     left join pg_class c on c.relfilenode = nullif(substring(w.block_ref from 'rel \\d+/\\d+/(\\d+)'), '')::oid
     group by 1, 2, 3 order by 5 desc`,
    [start, end],
  );
  console.log('\nWAL of 200 enqueue statements, a job:');
  for (const r of rows)
    console.log(
      `  ${`${r.rm}/${r.type}`.padEnd(28)} ${r.rel.padEnd(44)} ${(r.n / 200).toFixed(2)} records ${Math.round(r.bytes)} B`,
    );
}

console.log(`\nload average ${load()} at the end`);
await admin.end();
await pool.end();
await db.drop();
await server.stop();
