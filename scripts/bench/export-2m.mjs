/**
 * The 2,000,000-row export, end to end: `exportRows()` from PostgreSQL to the filesystem sink in a worker process of
 * its own, SIGKILLed once mid-way (right after a part is written, before its checkpoint lands) and resumed by a second
 * process, then `cat part-*` parsed by csv-parse and compared with the source table row by row. At every tenth of the
 * parts it prints the worker's resident set beside what it is made of — the heap V8 uses and keeps committed (per
 * space), the off-heap memory and its ArrayBuffers — read as the worker runs, without forcing a collection; at the end
 * each worker's peak, CPU time and live heap, and the RSS at 10 / 50 / 100 % with the climb between them.
 *
 * The worker runs with EXPORT_WORKER_NODE_FLAGS, default `--heap-growing-percent=30` (the README's setting for a
 * process that runs exports: V8 lets the old generation grow to 1.3× the live heap between major collections rather
 * than up to 4×, which is what made the RSS climb); EXPORT_WORKER_NODE_FLAGS='' runs node's defaults.
 *
 * `node scripts/bench/export-2m.mjs` (DATABASE_URL to use a running server; EXPORT_ROWS, EXPORT_BATCH, EXPORT_KILL_AT to change the defaults 2,000,000 /
 * 2,000 / 30; EXPORT_NODE_FLAGS, e.g. --trace-gc, adds node flags; EXPORT_GC=1 also prints the heap live after a forced
 * gc at each milestone, which perturbs the heap's sizing). Not part of the jest suite: it takes minutes.
 */
import { fork } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';
import pg from 'pg';
import { startThrowawayPostgres } from '../throwaway-postgres.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROWS = Number(process.env.EXPORT_ROWS ?? 2_000_000);
const BATCH = Number(process.env.EXPORT_BATCH ?? 2_000);
const KILL_AT = Number(process.env.EXPORT_KILL_AT ?? 30);
const WORKER_FLAGS = (process.env.EXPORT_WORKER_NODE_FLAGS ?? '--heap-growing-percent=30')
  .split(' ')
  .filter(Boolean);
const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const started = Date.now();
const log = (line) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);

function spawnWorker(args) {
  return fork(join(ROOT, 'scripts', 'bench', 'export-worker.ts'), args, {
    execArgv: [
      '--expose-gc',
      ...WORKER_FLAGS,
      ...(process.env.EXPORT_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      '-r',
      join(ROOT, 'libs', 'jobs-pg', 'test', 'swc-register.js'),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

const exited = (child) =>
  new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

/** One worker process of the export; resolves on `done`, or on `killed` once it SIGKILLed it at `killAt` %. */
function serve(url, root, label, killAt, printed) {
  const child = spawnWorker(['run', url, root, String(ROWS), String(BATCH)]);
  const gone = exited(child);
  return new Promise((resolve, reject) => {
    child.on('message', (m) => {
      if (m.type === 'ready')
        log(
          `${label}: serving (enqueue ${m.deduped ? 'deduped into the live export' : 'landed'}), rss ${mib(m.rss)}`,
        );
      if (m.type === 'progress' && m.pct > printed.pct) {
        printed.pct = m.pct;
        printed.rss.set(m.pct, m.rss);
        log(
          `${label}: ${String(m.pct).padStart(3)} % (${m.rows.toLocaleString('en')} rows written)  rss ${mib(m.rss)}  heap ${mib(m.heapUsed)} used of ${mib(m.heapTotal)} committed  external ${mib(m.external)} (arrayBuffers ${mib(m.arrayBuffers)})${m.live === undefined ? '' : `  live after gc ${mib(m.live)}`}  load ${load()}`,
        );
        log(`${' '.repeat(label.length)}  heap spaces, MiB used/committed: ${m.spaces}`);
      }
      if (m.type === 'progress' && killAt !== null && m.pct >= killAt) {
        child.kill('SIGKILL');
        void gone.then(({ signal }) => resolve({ killed: signal }));
      }
      if (m.type === 'done') {
        log(
          `${label}: done ${JSON.stringify(m.result)}  peak rss (sampled every 100 ms) ${mib(m.peakRss)}, cpu ${((m.cpu.user + m.cpu.system) / 1e6).toFixed(1)} s, heap live after a forced gc ${mib(m.live)}`,
        );
        child.kill('SIGTERM');
        void gone.then(() => resolve({ result: m.result }));
      }
      if (m.type === 'failed') reject(new Error(`the export failed: ${m.error}`));
    });
    void gone.then(({ code, signal }) => {
      if (code !== 0 && signal === null) reject(new Error(`${label} exited with ${code}`));
    });
  });
}

/** Streams `cat part-*` through csv-parse and compares each record with the source, read in keyset pages. */
async function compare(url, dir) {
  const names = (await readdir(dir)).sort();
  const parts = names.filter((n) => /^part-\d+\.csv$/.test(n));
  const others = names.filter((n) => !parts.includes(n) && n !== 'manifest.json');
  const cat = new PassThrough();
  void (async () => {
    for (const name of parts) {
      await new Promise((resolve, reject) => {
        const file = createReadStream(join(dir, name));
        file.on('error', reject).on('end', resolve);
        file.pipe(cat, { end: false });
      });
    }
    cat.end();
  })();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let buffer = [];
  let after = 0;
  let compared = 0;
  let mismatches = 0;
  let sample = null;
  const cell = (s) => (s === null ? '' : /^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
  for await (const record of cat.pipe(parse({ columns: true }))) {
    if (buffer.length === 0) {
      const { rows } = await client.query(
        'select id, customer, cents, note from export_orders where id > $1 order by id limit 10000',
        [after],
      );
      buffer = rows.reverse();
      after = rows.length === 0 ? after : rows[0].id;
    }
    const row = buffer.pop();
    compared++;
    const expected = row && {
      id: String(row.id),
      customer: cell(row.customer),
      cents: String(row.cents),
      note: cell(row.note),
    };
    if (JSON.stringify(record) !== JSON.stringify(expected)) {
      if (mismatches++ < 3)
        log(
          `mismatch at record ${compared}: ${JSON.stringify(record)} vs ${JSON.stringify(expected)}`,
        );
    }
    if (record.id === '7') sample = record.customer;
  }
  const { rows } = await client.query('select count(*)::int as n from export_orders');
  await client.end();
  return { parts: parts.length, others, compared, source: rows[0].n, mismatches, sample };
}

async function main() {
  log(
    `export of ${ROWS.toLocaleString('en')} rows, batch ${BATCH}, SIGKILL at ${KILL_AT} %, worker node flags ${WORKER_FLAGS.join(' ') || '(none)'}; load ${load()}`,
  );
  const server = process.env.DATABASE_URL
    ? { url: process.env.DATABASE_URL, stop: async () => {} }
    : await startThrowawayPostgres({ name: 'jobs-export-bench', password: 'jobs-export-bench' });
  const name = `jobs_export_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const root = await mkdtemp(join(tmpdir(), 'export-2m-'));
  try {
    const seeding = spawnWorker(['seed', url.toString(), root, String(ROWS), String(BATCH)]);
    const seeded = await exited(seeding);
    if (seeded.code !== 0) throw new Error(`seeding exited with ${seeded.code}`);
    log(`seeded export_orders; load ${load()}`);
    const printed = { pct: 0, rss: new Map() };
    const first = await serve(url.toString(), root, 'worker 1', KILL_AT, printed);
    log(
      `worker 1: ${first.killed} (mid-way); worker 2 starts and reclaims the run once its 5 s lease lapses`,
    );
    const second = await serve(url.toString(), root, 'worker 2', null, printed);
    const check = await compare(url.toString(), join(root, 'exports', 'bench-2m'));
    log(
      `cat part-* (${check.parts} parts${check.others.length ? `, stray files: ${check.others.join(', ')}` : ', no stray file'}) parsed by csv-parse: ` +
        `${check.compared.toLocaleString('en')} records vs ${check.source.toLocaleString('en')} source rows, ${check.mismatches} mismatches`,
    );
    log(`record id 7's customer cell: ${check.sample}`);
    const [at10, at50, at100] = [10, 50, 100].map((pct) => printed.rss.get(pct));
    const readings = [...printed.rss.values()];
    log(
      `rss at 10 / 50 / 100 %: ${mib(at10)} / ${mib(at50)} / ${mib(at100)} (100 % vs 10 %: ${(((at100 - at10) / at10) * 100).toFixed(1)} %), ` +
        `${mib(Math.min(...readings))} to ${mib(Math.max(...readings))} over the ${readings.length} readings; worker node flags: ${WORKER_FLAGS.join(' ') || '(none)'}; load ${load()}`,
    );
    const ok =
      check.mismatches === 0 &&
      check.compared === check.source &&
      second.result.rows === check.source;
    log(ok ? 'OK: the export equals the source' : 'FAILED: the export differs from the source');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await rm(root, { recursive: true, force: true });
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
