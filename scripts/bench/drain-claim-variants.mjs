/**
 * Server cost of the claim and ack statements of checkouts side by side, one session per (checkout, statement),
 * interleaved: `BENCH_CHECKOUTS=/a,/b node scripts/bench/drain-claim-variants.mjs` (default: this checkout), each
 * read from its built `dist/`. Fills one queue with BENCH_ROWS no-op jobs, then claims them BENCH_CLAIM at a time
 * through each checkout's `SQL_CLAIM_WOKEN` (`BENCH_STATEMENT=waiting`: `SQL_CLAIM_WAITING`, one slot) in turn, each claim acked at once by that checkout's `SQL_ACK` (so every
 * checkout meets the same table). Prints per checkout the backend CPU of its claims and of its acks per row (µs,
 * /proc/<pid>/schedstat, median of the rounds) and each session's backend pid: run the server under
 * `valgrind --tool=callgrind` (DATABASE_URL) and read each pid's instruction count for a counted figure, less the
 * count of the session `idle` that only connects.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { startPostgres } from './embedded-pg.mjs';
import { enqueueRequest } from './requests.mjs';
import { ROOT, jobs, jobsPg, pg, withDatabase, median } from './lib.mjs';

const ROWS = Number(process.env.BENCH_ROWS ?? 60_000);
const CLAIM = Number(process.env.BENCH_CLAIM ?? 100);
const WAITING = process.env.BENCH_STATEMENT === 'waiting';
/** checkout -> [claim sql, ack sql] */
const variants = {};
for (const root of (process.env.BENCH_CHECKOUTS ?? ROOT).split(',')) {
  const sql = createRequire(join(root, 'package.json'))(
    join(root, 'libs', 'jobs-pg', 'dist', 'index.js'),
  );
  variants[root] = [WAITING ? sql.SQL_CLAIM_WAITING : sql.SQL_CLAIM_WOKEN, sql.SQL_ACK];
}

const cpuNs = (pid) => {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0; // a server on another host
  }
};

const server = await startPostgres();
const admin = new pg.Client({ connectionString: server.url });
await admin.connect();
await admin.query('drop database if exists claimvar with (force)');
await admin.query('create database claimvar');
const url = withDatabase(server.url, 'claimvar');
const pool = new pg.Pool({ connectionString: url, max: 4 });
const executor = jobsPg.pgPoolExecutor(pool);
await jobsPg.migrate(executor);
const driver = jobsPg.postgresJobDriver({ executor });
for (let i = 0; i < ROWS; i += 1000)
  await driver.enqueueMany(
    Array.from({ length: 1000 }, (_, k) =>
      enqueueRequest(jobs.uuidv7, { queue: 'q', name: 'n', input: { n: i + k } }),
    ),
  );
await pool.query('vacuum analyze x_jobs');
await pool.query('checkpoint');

async function session() {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const pid = (await c.query('select pg_backend_pid() as p')).rows[0].p;
  return { c, pid, us: [], rows: 0 };
}
const idle = await session();
const sessions = {};
for (const name of Object.keys(variants))
  sessions[name] = { claim: await session(), ack: await session() };

async function timed(s, query) {
  const before = cpuNs(s.pid);
  const result = await s.c.query(query);
  return { result, us: (cpuNs(s.pid) - before) / 1000 };
}

const names = Object.keys(variants);
for (let round = 0, done = 0; done + CLAIM * names.length <= ROWS; round++) {
  for (const name of names) {
    const [claimSql, ackSql] = variants[name];
    const { claim, ack } = sessions[name];
    const c = await timed(claim, {
      name: 'claim',
      text: claimSql,
      values: WAITING
        ? [null, 'w1', ['q'], ['n'], [CLAIM], [0], [null], [], 30000, true]
        : [null, 'w1', 'q', 'n', CLAIM, 0, null, [], 30000, true],
    });
    const rows = c.result.rows;
    done += rows.length;
    claim.rows += rows.length;
    ack.rows += rows.length;
    const fences = `{${rows.map((r) => `"${r.id}":"${r.claim}"`).join(',')}}`;
    const a = await timed(ack, {
      name: 'ack',
      text: ackSql,
      values: [null, rows.map((r) => r.id), ['w1'], fences, rows.map(() => 1)],
    });
    if (a.result.rows.length !== 0) throw new Error(`${name}: ${a.result.rows.length} acks missed`);
    if (round >= 6) {
      claim.us.push(c.us / rows.length);
      ack.us.push(a.us / rows.length);
    }
  }
}
console.log(`idle session pid ${idle.pid}`);
for (const [name, { claim, ack }] of Object.entries(sessions))
  console.log(
    `${name} claim ${median(claim.us).toFixed(2)} µs/row (pid ${claim.pid}, ${claim.rows} rows)  ` +
      `ack ${median(ack.us).toFixed(2)} µs/row (pid ${ack.pid})`,
  );
for (const s of [idle, ...Object.values(sessions).flatMap((v) => [v.claim, v.ack])])
  await s.c.end();
await pool.end();
await admin.end();
await server.stop();
