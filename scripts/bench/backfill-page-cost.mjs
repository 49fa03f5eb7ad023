#!/usr/bin/env node
/**
 * `node scripts/bench/backfill-page-cost.mjs`: what one 1,000-row backfill page read costs the app's process, by how
 * it is read — `readKeysetPage` as a pass reads it (a TypeORM query built per page, `getMany()` hydrating entities),
 * the same over a source selecting only the key (what a sweep whose handle needs only ids can declare:
 * `.select(['p.id'])`), a lean hydration of the same query (`getRawMany()`, then per row and column only what `getMany()` does per column —
 * the driver's conversion, the entity's setter — without its grouping by primary key or its load events), the same
 * query's `getRawMany()` (no hydration), and the same page as one plain SQL statement on the DataSource (`pg`'s rows,
 * no query building). The reads are interleaved page by page, so whatever else the machine does lands on each
 * alike. Prints per read: the process CPU a page took (GC threads included), the longest event-loop stall during it
 * (what a request of the same process waits behind at worst: wall time and the CPU in it), the heap it left
 * allocated, and the GC pauses while the reads of that kind were in flight. Not a test: it measures and prints.
 *
 * BENCH_PAGE_COST_PAGES (60 pages per read and round), BENCH_PAGE_COST_ROUNDS (4, after one warm-up round).
 */
import { loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { jobs, jobsPg, typeorm } from './backfill-common.mjs';
import { FeedPost, rawPage, seedFeed } from './backfill-feed.mjs';
import { spread } from './backfill-windows.mjs';
import { startPostgres } from './embedded-pg.mjs';

const PAGES = Number(process.env.BENCH_PAGE_COST_PAGES ?? 60);
const ROUNDS = Number(process.env.BENCH_PAGE_COST_ROUNDS ?? 4);
const BATCH = 1_000;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1_000;
};
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The reads compared: each answers the page after `after` (an id; 0 for the first). */
function reads(dataSource) {
  const query = (after) =>
    dataSource
      .getRepository(FeedPost)
      .createQueryBuilder('p')
      .where('p.id > :after', { after })
      .orderBy('p.id')
      .take(BATCH);
  return {
    readKeysetPage: async (after) =>
      (
        await jobs.readKeysetPage(
          'bench-page-cost',
          dataSource.getRepository(FeedPost).createQueryBuilder('p'),
          undefined,
          after === 0 ? null : [after],
          BATCH,
        )
      ).rows,
    selectIdOnly: async (after) =>
      (
        await jobs.readKeysetPage(
          'bench-page-cost',
          dataSource.getRepository(FeedPost).createQueryBuilder('p').select(['p.id']),
          undefined,
          after === 0 ? null : [after],
          BATCH,
        )
      ).rows,
    leanHydration: async (after) => {
      const qb = query(after);
      const raw = await qb.getRawMany();
      const { metadata } = qb.expressionMap.mainAlias;
      const { driver } = dataSource;
      const columns = metadata.columns.map((c) => [`p_${c.databaseName}`, c]);
      return raw.map((row) => {
        const entity = metadata.create(undefined, { fromDeserializer: true });
        for (const [key, column] of columns) {
          if (row[key] !== undefined) {
            column.setEntityValue(entity, driver.prepareHydratedValue(row[key], column));
          }
        }
        return entity;
      });
    },
    getRawMany: (after) => query(after).getRawMany(),
    plainSql: async (after) =>
      (await rawPage(dataSource, after === 0 ? null : [after], BATCH)).rows,
  };
}

/**
 * A 1 ms timer's firings with the process CPU then; `stall(a, b)` is the longest gap between two firings overlapping
 * [a, b] — wall ms past the interval, and the CPU spent in it.
 */
function ticker() {
  const ticks = [];
  const timer = setInterval(() => ticks.push({ wall: performance.now(), cpu: cpuMs() }), 1);
  return {
    stall(a, b) {
      let wall = 0;
      let cpu = 0;
      for (let i = 1; i < ticks.length; i++) {
        if (ticks[i].wall > a && ticks[i - 1].wall < b) {
          wall = Math.max(wall, ticks[i].wall - ticks[i - 1].wall - 1);
          cpu = Math.max(cpu, ticks[i].cpu - ticks[i - 1].cpu);
        }
      }
      ticks.splice(0, ticks.length - 1);
      return { wall, cpu };
    },
    stop: () => clearInterval(timer),
  };
}

/** Reads every page of every kind, interleaved, `ROUNDS` times after a warm-up; answers the figures per kind. */
async function measure(dataSource) {
  let gcs = [];
  const observer = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const ticks = ticker();
  const kinds = reads(dataSource);
  const by = new Map(
    Object.keys(kinds).map((k) => [k, { cpu: [], stall: [], stallCpu: [], heap: [], gc: [] }]),
  );
  for (let round = 0; round <= ROUNDS; round++) {
    for (let page = 0; page < PAGES; page++) {
      for (const [kind, read] of Object.entries(kinds)) {
        await pause(5); // a firing just before the page
        gcs = [];
        const heap = process.memoryUsage().heapUsed;
        const c = cpuMs();
        const t = performance.now();
        const rows = await read(page * BATCH);
        const end = performance.now();
        const used = cpuMs() - c;
        const grew = process.memoryUsage().heapUsed - heap;
        if (rows.length !== BATCH) throw new Error(`${kind}: ${rows.length} rows at page ${page}`);
        await pause(5); // and one after it: the gap ending the page's last slice
        const stall = ticks.stall(t, end);
        if (round === 0) continue; // warm-up: JIT, prepared plans, connections
        const s = by.get(kind);
        s.cpu.push(used);
        s.stall.push(stall.wall);
        s.stallCpu.push(stall.cpu);
        s.heap.push(grew / 1024 / 1024);
        s.gc.push(...gcs.map((g) => g.duration));
      }
    }
  }
  ticks.stop();
  observer.disconnect();
  return by;
}

async function main() {
  const server = await startPostgres({ log: (m) => console.log(m) });
  try {
    const url = await seedFeed(
      server.url,
      `bf_bench_page_cost_${process.pid}`,
      PAGES * BATCH + BATCH,
      100,
      (e) => jobsPg.migrate(e),
    );
    const dataSource = new typeorm.DataSource({ type: 'postgres', url, entities: [FeedPost] });
    await dataSource.initialize();
    console.log(`load average at start ${load()}`);
    const by = await measure(dataSource);
    console.log(
      `\n${PAGES * ROUNDS} pages of ${BATCH} rows per read, interleaved (p50 / p95 / p99):`,
    );
    const three = (s, digits = 2) =>
      `${s.p50.toFixed(digits)} / ${s.p95.toFixed(digits)} / ${s.p99.toFixed(digits)}`;
    for (const [kind, s] of by) {
      const gcMs = s.gc.reduce((a, b) => a + b, 0);
      console.log(
        `  ${kind.padEnd(15)} process CPU a page ${three(spread(s.cpu))} ms; longest stall ${three(spread(s.stall))} ms wall, ` +
          `CPU in it ${three(spread(s.stallCpu))} ms; heap +${spread(s.heap).p50.toFixed(2)} MiB a page (p50); ` +
          `GC in flight ${s.gc.length} pauses, ${(gcMs / s.cpu.length).toFixed(2)} ms a page, max ${Math.max(0, ...s.gc).toFixed(1)} ms`,
      );
    }
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
