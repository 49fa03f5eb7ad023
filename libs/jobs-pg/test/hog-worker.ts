/**
 * The worker process of the CPU-bound spec (`cpu-bound-body.spec.ts`), run from source through `swc-register.js`
 * with an IPC channel. argv: <database url> <release file> <visibility timeout ms>.
 *
 * It serves queue `hog` at concurrency 1. `hog.work` writes its `before` step, tells the spec `{ type: 'hogging' }`,
 * then holds the event loop in a synchronous loop until <release file> exists (the spec creates it; checked by
 * `existsSync`, which lets no callback run) — no timer, no heartbeat, no I/O callback runs meanwhile, as in a body
 * parsing a huge file — and then tries its `after` step, reporting `{ type: 'hogged', aborted, after }`: whether
 * the attempt's signal was aborted by then and what the write answered (`written`, or the error's code). Sends
 * `{ type: 'ready' }` once serving; on SIGTERM it drains, sends `{ type: 'stopped', stats }` and exits.
 */
import { existsSync } from 'node:fs';
import { Pool } from 'pg';
import { JobRegistry, jobWorker } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresJobDriver } from '@ultimat3/jobs-pg';
import { hogWork } from './hog-job';
import { serveWorker } from './worker-process';

const [url, release, vt] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 4 });
pool.on('error', () => undefined);
const executor = pgPoolExecutor(pool);

/** At most how long the body holds the thread, should the spec never release it. */
const HOG_LIMIT_MS = 60_000;

/** Holds this process's only thread until `file` exists: nothing else of the process runs until it returns. */
function hogUntil(file: string): void {
  const until = Date.now() + HOG_LIMIT_MS;
  while (!existsSync(file) && Date.now() < until) {
    // a CPU-bound body: no await, so the event loop never turns
  }
}

const work = hogWork(async ({ step, signal }) => {
  await step.run('before', async () => 'before, by the hog');
  process.send?.({ type: 'hogging' });
  hogUntil(String(release));
  let after: string;
  try {
    await step.run('after', async () => 'after, by the hog');
    after = 'written';
  } catch (error) {
    after = (error as { code?: string }).code ?? String(error);
  }
  process.send?.({ type: 'hogged', aborted: signal.aborted, after });
});

async function main(): Promise<void> {
  const registry = new JobRegistry();
  registry.register(work);
  const worker = jobWorker({
    driver: postgresJobDriver({ executor }),
    registry,
    concurrency: 1,
    workerId: 'hog',
    visibilityTimeoutMs: Number(vt),
  });
  await serveWorker({ url, pool, executor, worker, stopped: () => ({ stats: worker.stats() }) });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
