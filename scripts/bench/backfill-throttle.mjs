#!/usr/bin/env node
/**
 * `node scripts/bench/backfill-throttle.mjs`: the backfill throttle measured as an app meets it. One TypeORM
 * DataSource (one pool) carries everything: the jobs (the PostgreSQL backend over the DataSource, as
 * `JobsModule.forRoot({ postgres: { dataSource } })` builds it), the sweep's keyset reads and its UPDATEs, and the
 * app's request — an org's 20 newest posts through the repository, an index range scan on the table the sweep writes,
 * 50 a second. A 60,000-row pass at `rate: 5` and `batch: 1000` (60 pages, one every 200 ms: 12 s) runs in
 * interleaved windows — idle, pass, idle, bare, idle, pass… — so whatever else the machine does lands on every side
 * alike. A bare window reads and writes the same pages at the same pace without a job (no worker, checkpoint, ledger
 * or throttle): what a pass costs the request beyond it is the backfill machinery's. A raw window is a bare one whose
 * pages are one plain SQL statement each (`pg`'s rows, no query building or entity hydration): what the ORM's share of
 * a page costs the request. A narrow window is a bare one whose source selects only the id (all its UPDATE needs), as
 * an app's sweep can: what reading fewer columns takes off. A narrow-pass window is a pass of the same backfill
 * declared over that narrowed source.
 *
 * Prints per window and per side: the request's p50 / p95 / p99 / max and the pass side's p99 over the idle side's;
 * the CPU time this process spent while each request was in flight (its own work plus whatever it waited behind here —
 * a page's hydration, a GC — which a loaded machine does not inflate as it inflates wall time);
 * the same read from another process on its own connection (the control: it shares neither the pool nor the event
 * loop, so a tail it does not see is this process's); pool checkouts that found the pool full and how long they
 * waited; the event loop's delay and GC pauses; what PostgreSQL counted for the request, the page read and the UPDATE
 * (pg_stat_statements: server time, buffers per call); what other backends were waiting on (pg_stat_activity samples);
 * the load average; and each pass's duration against 12 s ± 10 %. Not a test: it measures and prints.
 *
 * BENCH_THROTTLE_ROWS (60,000), BENCH_THROTTLE_RATE (5), BENCH_THROTTLE_ROUNDS (3 idle/pass pairs),
 * BENCH_THROTTLE_POOL (4 connections), BENCH_THROTTLE_RPS (50 requests a second), BENCH_THROTTLE_KINDS (the windows
 * after each pass, each behind an idle one of its own, from `bare,raw,narrow,narrow-pass`, all four by default; empty
 * for idle/pass only). Uses DATABASE_URL when set (its server must load pg_stat_statements).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { jobs, jobsPg, pg, typeorm } from './backfill-common.mjs';
import { bareSweep, declareFeedSweep, FeedPost, feedRequest, seedFeed } from './backfill-feed.mjs';
import { printReport } from './backfill-report.mjs';
import { now, statementCounts, watchPool, watchProcess } from './backfill-windows.mjs';
import { startPostgres } from './embedded-pg.mjs';

const ROWS = Number(process.env.BENCH_THROTTLE_ROWS ?? 60_000);
const RATE = Number(process.env.BENCH_THROTTLE_RATE ?? 5);
const ROUNDS = Number(process.env.BENCH_THROTTLE_ROUNDS ?? 3);
const POOL = Number(process.env.BENCH_THROTTLE_POOL ?? 4);
const RPS = Number(process.env.BENCH_THROTTLE_RPS ?? 50);
const KINDS = (process.env.BENCH_THROTTLE_KINDS ?? 'bare,raw,narrow,narrow-pass')
  .split(',')
  .filter((k) => ['bare', 'raw', 'narrow', 'narrow-pass'].includes(k));
const BATCH = 1_000;
const ORGS = 100;
const EXPECTED_S = Math.ceil(ROWS / BATCH) / RATE;
const PROBE = fileURLToPath(new URL('./backfill-probe.mjs', import.meta.url));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The control process; answers its lines so far (requests and activity samples) and a stop. */
async function startProbe(url) {
  const child = spawn(process.execPath, [PROBE], {
    env: { ...process.env, BF_URL: url, BF_ORGS: String(ORGS), BF_RPS: String(RPS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = [];
  let ready;
  const isReady = new Promise((resolve) => (ready = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const parsed = JSON.parse(line);
    if (parsed.k === 'ready') ready();
    else lines.push(parsed);
  });
  await isReady;
  return { lines, stop: () => child.kill('SIGTERM') };
}

/** The app: its DataSource, the jobs on it, the sweep, a worker. */
async function startApp(url, onPage, phases) {
  const dataSource = new typeorm.DataSource({
    type: 'postgres',
    url,
    entities: [FeedPost],
    extra: { max: POOL },
  });
  await dataSource.initialize();
  const backend = await jobsPg.postgresBackend({ dataSource }, { migrate: false });
  const declare = (narrow) =>
    declareFeedSweep({ dataSource, ledger: backend.backfills, rate: RATE, onPage, phases, narrow });
  const sweep = declare(false);
  const narrowSweep = declare(true);
  const registry = new jobs.JobRegistry();
  registry.register(sweep);
  registry.register(narrowSweep);
  const worker = jobs.jobWorker({ driver: backend.driver, registry, concurrency: 1 });
  await worker.start();
  const uninstall = jobs.setJobsFacade(
    jobs.directJobsFacade({
      driver: backend.driver,
      onEnqueued: (q) => worker.signalEnqueued(q),
    }),
  );
  const close = async () => {
    uninstall();
    await worker.stop();
    await backend.close();
    await dataSource.destroy();
  };
  return { dataSource, sweep, narrowSweep, worker, close };
}

async function main() {
  const server = await startPostgres({ log: (m) => console.log(m) });
  let probe;
  let requests;
  let running = true;
  try {
    const url = await seedFeed(server.url, `bf_bench_throttle_${process.pid}`, ROWS, ORGS, (e) =>
      jobsPg.migrate(e),
    );
    const stats = new pg.Client({ connectionString: url });
    stats.on('error', () => undefined); // the server stopping under it at the end
    await stats.connect();
    let pages = [];
    const phases = []; // the sweeps' page reads and UPDATEs, when they ran
    const app = await startApp(url, () => pages.push(now()), phases);
    const pool = watchPool(app.dataSource.driver.master);
    const proc = watchProcess();
    probe = await startProbe(url);

    // the request runs throughout; each latency lands in the window it started in
    let current = { latencies: [], cpu: [], requests: [] };
    const cpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1_000;
    };
    requests = (async () => {
      for (let n = 0; running; n++) {
        const t = now();
        const c = cpuMs();
        const window = current;
        await feedRequest(app.dataSource, n % ORGS);
        const ms = now() - t;
        window.latencies.push(ms);
        window.cpu.push(cpuMs() - c);
        window.requests.push({ a: t, b: t + ms, cpu: window.cpu.at(-1) });
        await sleep(Math.max(0, 1_000 / RPS - ms));
      }
    })();

    const windows = [];
    const open = (kind, round) => {
      current = {
        kind,
        round,
        latencies: [],
        cpu: [],
        requests: [],
        start: now(),
        load: loadavg()[0],
      };
      return current;
    };
    const close = async (window) => {
      window.end = now();
      Object.assign(window, pool.take(), proc.take(), { server: await statementCounts(stats) });
      windows.push(window);
    };

    await sleep(2_000); // warm-up: connections open, statements prepared, JIT settled
    open('warm-up', 0);
    pool.take();
    proc.take();
    await statementCounts(stats);
    /** A pass of `sweep` in a window of its own, timed from enqueue to completion. */
    const runPass = async (kind, sweep, round) => {
      const pass = open(kind, round);
      pages = [];
      const completed = app.worker.stats().completed;
      await sweep.enqueue(round === 1 ? {} : { force: true });
      while (app.worker.stats().completed === completed) await sleep(10);
      await close(pass);
      pass.passSeconds = (pass.end - pass.start) / 1_000;
      pass.pages = pages.length;
      pass.pageSpan = pages.length > 1 ? (pages.at(-1) - pages[0]) / 1_000 : 0;
    };
    for (let round = 1; round <= ROUNDS; round++) {
      const idle = open('idle', round);
      await sleep(EXPECTED_S * 1_000);
      await close(idle);

      await runPass('pass', app.sweep, round);

      for (const kind of KINDS) {
        const idleAgain = open('idle', round);
        await sleep(EXPECTED_S * 1_000);
        await close(idleAgain);
        if (kind === 'narrow-pass') {
          await runPass(kind, app.narrowSweep, round);
          continue;
        }
        const bare = open(kind, round);
        await bareSweep(app.dataSource, {
          rows: ROWS,
          rate: RATE,
          batch: BATCH,
          read: kind === 'bare' ? 'orm' : kind,
          phases,
        });
        await close(bare);
      }
    }
    running = false;
    await requests;
    probe.stop();
    printReport({
      windows,
      phases,
      probe: probe.lines,
      config: { ROWS, RATE, BATCH, ROUNDS, POOL, RPS, ORGS, EXPECTED_S, KINDS },
    });
    pool.stop();
    proc.stop();
    await stats.end();
    await app.close();
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    running = false;
    await requests?.catch(() => undefined);
    probe?.stop();
    await server.stop();
  }
}

await main();
