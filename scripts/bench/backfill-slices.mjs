#!/usr/bin/env node
/**
 * `node scripts/bench/backfill-slices.mjs`: how long one backfill page read holds the app's event loop, by sub-read
 * size. Reads 1,000-row keyset pages of the throttle bench's feed table through a TypeORM repository, as
 * `readKeysetPageInSlices` does for a pass, at each slice size in turn (interleaved page by page, so whatever else the
 * machine does lands on every size alike), and prints per size: the event loop's longest stall during a page (what a
 * request arriving then waits at worst) in wall time and in the CPU time spent in it, the page's wall time and statements, and the heap
 * allocated per page. Not a test: it measures and prints.
 *
 * BENCH_SLICES_SIZES (1000,500,250,100), BENCH_SLICES_PAGES (60 pages per size), BENCH_SLICES_ROWS (60,000).
 */
import { loadavg } from 'node:os';
import { jobs, jobsPg, typeorm } from './backfill-common.mjs';
import { FeedPost, seedFeed } from './backfill-feed.mjs';
import { spread } from './backfill-windows.mjs';
import { startPostgres } from './embedded-pg.mjs';

const SIZES = (process.env.BENCH_SLICES_SIZES ?? '1000,500,250,100').split(',').map(Number);
const PAGES = Number(process.env.BENCH_SLICES_PAGES ?? 60);
const ROWS = Number(process.env.BENCH_SLICES_ROWS ?? 60_000);
const BATCH = 1_000;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * A 1 ms interval timer's firings, each with the process's CPU time then: the longest gap between two firings around a
 * page is the longest slice the page's work held the event loop (a timer due meanwhile — a request's callback — waits
 * that long), in wall time (which a loaded machine inflates by preempting the process) and in CPU time spent in it
 * (the work itself, whatever else the machine runs).
 */
function ticker() {
  const ticks = [];
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1_000;
  };
  const timer = setInterval(() => ticks.push({ wall: performance.now(), cpu: cpu() }), 1);
  return {
    /** The longest gap between firings that overlaps [a, b]: its wall ms (less the interval) and CPU ms. */
    stall(a, b) {
      let wall = 0;
      let used = 0;
      for (let i = 1; i < ticks.length; i++) {
        if (ticks[i].wall > a && ticks[i - 1].wall < b) {
          wall = Math.max(wall, ticks[i].wall - ticks[i - 1].wall - 1);
          used = Math.max(used, ticks[i].cpu - ticks[i - 1].cpu);
        }
      }
      ticks.splice(0, ticks.length - 1);
      return { wall, cpu: used };
    },
    stop: () => clearInterval(timer),
  };
}

/** Reads one page at `slice`, answering its longest event-loop stall, wall time, statements and heap growth. */
async function timedPage(dataSource, ticks, cursor, slice) {
  let statements = 0;
  const source = dataSource.getRepository(FeedPost).createQueryBuilder('p');
  const clone = source.clone.bind(source);
  source.clone = () => {
    statements++;
    return clone();
  };
  await new Promise((resolve) => setTimeout(resolve, 5)); // a firing just before the page
  const heap = process.memoryUsage().heapUsed;
  const t = performance.now();
  const page = await jobs.readKeysetPageInSlices(
    'bench-slices',
    source,
    undefined,
    cursor,
    BATCH,
    slice,
  );
  const end = performance.now();
  const grew = process.memoryUsage().heapUsed - heap;
  await new Promise((resolve) => setTimeout(resolve, 5)); // and one after it
  return { page, ms: end - t, stall: ticks.stall(t, end), statements, grew };
}

async function main() {
  const server = await startPostgres({ log: (m) => console.log(m) });
  try {
    const url = await seedFeed(server.url, `bf_bench_slices_${process.pid}`, ROWS, 100, (e) =>
      jobsPg.migrate(e),
    );
    const dataSource = new typeorm.DataSource({ type: 'postgres', url, entities: [FeedPost] });
    await dataSource.initialize();
    console.log(`load average at start ${load()}`);
    const ticks = ticker();
    const by = new Map(
      SIZES.map((s) => [s, { stalls: [], cpus: [], ms: [], statements: 0, grew: [] }]),
    );
    const pages = Math.floor(ROWS / BATCH);
    for (let warm = 0; warm < 5; warm++) {
      for (const size of SIZES) await timedPage(dataSource, ticks, null, size);
    }
    for (let n = 0; n < PAGES; n++) {
      const after = [(n % pages) * BATCH]; // page n of the table, read at every size in turn
      for (const size of SIZES) {
        const r = await timedPage(dataSource, ticks, after, size);
        if (r.page.rows.length !== BATCH) throw new Error(`short page at ${after}`);
        const s = by.get(size);
        s.stalls.push(r.stall.wall);
        s.cpus.push(r.stall.cpu);
        s.ms.push(r.ms);
        s.statements += r.statements;
        s.grew.push(r.grew);
      }
    }
    console.log(`\n${PAGES} pages of ${BATCH} rows per sub-read size, interleaved:`);
    for (const [size, s] of by) {
      const stall = spread(s.stalls);
      const cpu = spread(s.cpus);
      const ms = spread(s.ms);
      const grew = spread(s.grew.map((b) => b / 1024 / 1024));
      console.log(
        `  slice ${String(size).padStart(4)}: longest event-loop stall per page p50 ${stall.p50.toFixed(1)}  p95 ${stall.p95.toFixed(1)}  max ${stall.max.toFixed(1)} ms wall, CPU in it p50 ${cpu.p50.toFixed(1)}  p95 ${cpu.p95.toFixed(1)}  max ${cpu.max.toFixed(1)} ms; ` +
          `page wall p50 ${ms.p50.toFixed(1)}  p95 ${ms.p95.toFixed(1)} ms; ${(s.statements / PAGES).toFixed(0)} statements a page; heap +${grew.p50.toFixed(1)} MiB a page (p50)`,
      );
    }
    ticks.stop();
    console.log(`load average at end ${load()}`);
    await dataSource.destroy();
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

await main();
