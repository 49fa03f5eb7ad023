#!/usr/bin/env node
/**
 * `node scripts/bench/backfill-kill.mjs`: a 1,000,000-row backfill (batch 1,000) on the embedded PostgreSQL, its
 * worker process SIGKILLed twice mid-pass (at ~30 % and ~65 % of the table) and started again each time. Prints where
 * each kill left the step checkpoints and where the next worker resumed, the worker's RSS at 10 %, 50 % and 100 %,
 * and checks the end state: every row handled at least once, the slugs exact, re-handled rows bounded by the pages in
 * flight at the kills, pauses paid once per executed page. Not a test: it measures and prints.
 *
 * BENCH_BACKFILL_ROWS (default 1,000,000), BENCH_BACKFILL_RATE (default 200 pages/s), BENCH_BACKFILL_KILLS (default
 * '0.3,0.65'; '' runs one worker throughout, whose RSS at 10 / 50 / 100 % is then one process's). Uses DATABASE_URL
 * when set.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { declareSweep, jobs, jobsPg, mib, pg, seedDatabase } from './backfill-common.mjs';
import { startPostgres } from './embedded-pg.mjs';

const ROWS = Number(process.env.BENCH_BACKFILL_ROWS ?? 1_000_000);
const RATE = Number(process.env.BENCH_BACKFILL_RATE ?? 200);
// BENCH_BACKFILL_KILLS: where the worker is SIGKILLed, as fractions of the table ('' = never: one process, for RSS)
const KILLS = (process.env.BENCH_BACKFILL_KILLS ?? '0.3,0.65')
  .split(',')
  .filter((f) => f !== '')
  .map(Number);
const WORKER = fileURLToPath(new URL('./backfill-worker.mjs', import.meta.url));

/** Starts one worker process; answers it and a promise of its end. `onLine` gets each JSON line it prints. */
function startWorker(url, onLine) {
  const child = spawn(process.execPath, ['--expose-gc', WORKER], {
    env: { ...process.env, BF_URL: url, BF_ROWS: String(ROWS), BF_RATE: String(RATE) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('{')) onLine(JSON.parse(line), child);
  });
  const ended = new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, ended };
}

/** The newest `batch:N` checkpoint of the run: its page number and the cursor it stored. */
async function lastCheckpoint(pool, jobId) {
  const { rows } = await pool.query(
    `select name, output from x_job_steps where job_id = $1 and name like 'batch:%'
     order by split_part(name, ':', 2)::int desc limit 1`,
    [jobId],
  );
  return rows[0] === undefined
    ? { page: -1, cursor: null }
    : { page: Number(rows[0].name.slice(6)), cursor: rows[0].output.cursor };
}

async function main() {
  const server = await startPostgres({ log: (m) => console.log(m) });
  try {
    console.log(`seeding ${ROWS.toLocaleString('en-US')} rows…`);
    const url = await seedDatabase(server.url, `bf_bench_kill_${process.pid}`, ROWS);
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const executor = jobsPg.pgPoolExecutor(pool);
    const driver = jobsPg.postgresJobDriver({ executor });
    const ledger = jobsPg.postgresBackfillLedger({ executor });
    const sweep = declareSweep({ dataSource: null, pool, ledger, rate: RATE });
    const uninstall = jobs.setJobsFacade(jobs.directJobsFacade({ driver }));
    const { id: jobId } = await sweep.enqueue({});
    uninstall();

    const started = performance.now();
    const rss = [];
    const processes = [];
    let kills = [...KILLS];
    let settled = false;
    for (let n = 0; !settled; n++) {
      const seen = { first: null, pages: 0 };
      processes.push(seen);
      const { ended } = startWorker(url, (line, child) => {
        if (line.event === 'page') {
          seen.first ??= line.first;
          seen.pages = line.pages;
          if (kills.length > 0 && line.last >= kills[0] * ROWS) {
            kills = kills.slice(1);
            child.kill('SIGKILL');
          }
        }
        if (line.event === 'rss') rss.push({ ...line, process: n + 1 });
        if (line.event === 'settled') settled = true;
      });
      const end = await ended;
      if (end.signal === 'SIGKILL') {
        seen.killedAt = await lastCheckpoint(pool, jobId);
        console.log(
          `worker ${n + 1} SIGKILLed: newest checkpoint batch:${seen.killedAt.page} (cursor ${JSON.stringify(seen.killedAt.cursor)})`,
        );
      } else if (!settled) {
        throw new Error(`worker ${n + 1} exited (${end.code}) before the pass settled`);
      }
    }
    const seconds = (performance.now() - started) / 1_000;
    for (let i = 1; i < processes.length; i++) {
      const before = processes[i - 1].killedAt;
      console.log(
        `worker ${i + 1} first page began at id ${processes[i].first} (after the checkpoint's cursor ${JSON.stringify(before.cursor)})`,
      );
    }
    for (const { at, rss: bytes, heapUsed, process } of rss) {
      console.log(
        `RSS at ${Math.round(at * 100)} %: ${mib(bytes)}, heap after gc ${mib(heapUsed)} (worker ${process})`,
      );
    }
    const { rows } = await pool.query(
      `select count(*) filter (where handled = 0)::int as never,
              count(*) filter (where handled > 1)::int as again,
              count(*) filter (where slug is distinct from 'post-' || id)::int as wrong
       from bf_bench_posts`,
    );
    const [row] = await ledger.list({ name: 'bench-slugs', limit: 1 });
    const executed = processes.reduce((sum, p) => sum + p.pages, 0);
    const pages = Math.ceil(ROWS / 1_000);
    console.log(
      `\nBackfill SIGKILLed ${KILLS.length} time(s): ${ROWS.toLocaleString('en-US')} rows, batch 1,000, rate ${RATE}/s`,
    );
    console.log(`  pass took ${seconds.toFixed(1)} s over ${processes.length} worker processes`);
    console.log(`  rows never handled: ${rows[0].never}; rows with a wrong slug: ${rows[0].wrong}`);
    console.log(
      `  rows handled more than once: ${rows[0].again} (bound: the pages in flight at the ${KILLS.length} kill(s), ≤ ${KILLS.length * 1_000})`,
    );
    console.log(
      `  pages executed: ${executed} for ${pages} pages — a pause is only spent inside an executed page's step, so the ${processes.length - 1} resumed workers re-paid none for the pages they replayed`,
    );
    console.log(
      `  ledger: ${row?.status}, rows ${row?.rows}, batches ${row?.batches}, cursor ${JSON.stringify(row?.lastCursor)}`,
    );
    console.log(
      `  load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    await pool.end();
  } finally {
    await server.stop();
  }
}

await main();
