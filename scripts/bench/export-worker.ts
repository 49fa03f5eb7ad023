/**
 * The worker process of `export-2m.mjs`, run from source through `libs/jobs-pg/test/swc-register.js` with an IPC
 * channel. argv: <mode: seed | run> <database url> <export root> <rows> <batch>.
 *
 * `seed` creates `export_orders` and fills it with `rows` rows (names with commas, quotes, line breaks and formula
 * leads), then exits. `run` migrates the jobs schema, enqueues the export (deduped by its prefix when it is already
 * live — the resumed process re-enqueues the same job), serves it on a PostgreSQL-driven worker, and reports to its
 * parent: `{ type: 'progress', pct, rows, rss, heapUsed, heapTotal, external, arrayBuffers, spaces }` on crossing every
 * tenth of the parts, and at the end the sampled peak, the process's CPU time and the heap still live after a forced
 * gc. It never holds the export: what it holds is one page.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import {
  directJobsFacade,
  exportRows,
  filesystemExportSink,
  JobRegistry,
  jobWorker,
  setJobsFacade,
  t,
  type ExportSink,
} from '@ultimat3/jobs';
import { migrate, pgPoolExecutor, postgresJobDriver } from '@ultimat3/jobs-pg';
import { ExportOrder, seedOrders } from '../../libs/jobs/test/export-orders';

const [mode, url, root, rowsArg, batchArg] = process.argv.slice(2);
const total = Number(rowsArg);
const batch = Number(batchArg);
const send = (message: Record<string, unknown>): void => void process.send?.(message);

async function dataSource(): Promise<DataSource> {
  const data = new DataSource({
    type: 'postgres',
    url,
    entities: [ExportOrder],
    synchronize: mode === 'seed',
  });
  return data.initialize();
}

/** MiB with one decimal. */
const mib = (n: number): string => (n / 1_048_576).toFixed(1);

/**
 * The process's memory at a milestone, read as it runs — never after a forced gc, which resizes the heap and hides
 * what a worker left alone commits (a gc at each milestone once made a climbing RSS look flat): the resident set, the
 * heap V8 uses (live plus garbage not yet collected) and keeps committed, the off-heap memory (Buffers and native) and
 * its ArrayBuffer part, and each heap space's used / committed MiB. The resident set minus the committed heap minus
 * the off-heap is the binary's mapped code and malloc's own. EXPORT_GC=1 adds the heap live after a forced gc.
 */
function memoryAt(): Record<string, number | string> {
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const spaces = getHeapSpaceStatistics()
    .filter((space) => space.space_size > 0)
    .map(
      (space) =>
        `${space.space_name.replace(/_space$/, '')} ${mib(space.space_used_size)}/${mib(space.space_size)}`,
    )
    .join(', ');
  const at = { rss, heapUsed, heapTotal, external, arrayBuffers, spaces };
  return process.env.EXPORT_GC === '1' ? { ...at, live: liveHeap() } : at;
}

/** The heap still live after a full collection (the node flag --expose-gc is the bench's). */
function liveHeap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** The sink, reporting the process's memory as the parts cross each milestone (a part's index says how far it is). */
function reportingSink(inner: ExportSink): ExportSink {
  const parts = Math.ceil(total / batch);
  const milestones = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
  return {
    async write(key, body, options) {
      await inner.write(key, body, options);
      const page = /part-(\d+)\./.exec(key);
      if (page === null) return;
      const pct = ((Number(page[1]) + 1) / parts) * 100;
      while (milestones.length > 0 && pct >= milestones[0]!) {
        send({
          type: 'progress',
          pct: milestones.shift(),
          rows: Math.min(total, (Number(page[1]) + 1) * batch),
          ...memoryAt(),
        });
      }
    },
  };
}

async function run(): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined);
  const executor = pgPoolExecutor(pool);
  await migrate(executor);
  const data = await dataSource();
  const driver = postgresJobDriver({ executor });
  const handle = exportRows({
    name: 'bench.orders.export',
    input: t.object({ exportId: t.string }),
    tenant: 'none',
    prefix: ({ exportId }) => `exports/${exportId}`,
    source: () => data.getRepository(ExportOrder).createQueryBuilder('o'),
    format: 'csv',
    columns: ['id', 'customer', 'cents', 'note'],
    row: (o) => ({ id: o.id, customer: o.customer, cents: o.cents, note: o.note }),
    sink: reportingSink(filesystemExportSink({ root: root ?? '' })),
    batch,
    onSettled: (s) => {
      if (s.outcome === 'completed')
        send({
          type: 'done',
          result: s.result,
          peakRss,
          cpu: process.cpuUsage(),
          live: liveHeap(),
        });
      else send({ type: 'failed', error: s.error });
    },
  });
  const registry = new JobRegistry();
  registry.register(handle);
  // a short lease, so the resumed process reclaims the killed one's run in seconds rather than the default's
  const worker = jobWorker({
    driver,
    registry,
    workerId: `export-bench-${process.pid}`,
    visibilityTimeoutMs: 5_000,
  });
  setJobsFacade(directJobsFacade({ driver, onEnqueued: (q) => worker.signalEnqueued(q) }));
  let peakRss = 0;
  setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100).unref();
  await worker.start();
  const { deduped } = await handle.enqueue({ exportId: 'bench-2m' });
  send({ type: 'ready', deduped, rss: process.memoryUsage().rss });
}

async function seed(): Promise<void> {
  const data = await dataSource();
  await seedOrders(data, total);
  await data.query('vacuum analyze export_orders');
  await data.destroy();
}

(mode === 'seed' ? seed().then(() => process.exit(0)) : run()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
