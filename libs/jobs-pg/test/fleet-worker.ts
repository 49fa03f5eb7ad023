/**
 * One worker process of the two-worker spec (`two-workers.spec.ts`), run from source through `swc-register.js` with
 * an IPC channel. argv: <database url> <worker name>.
 *
 * It serves queue `fleet` at concurrency 10 with a proven wake; each run of `fleet.record` writes one row to
 * `fleet_done` — no unique constraint, so a job completed twice shows up as two rows. Sends `{ type: 'ready' }` once
 * serving; on SIGTERM it drains, sends `{ type: 'stopped', stats }` and exits.
 */
import { Client, Pool } from 'pg';
import { job, JobRegistry, jobWorker, t } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresJobDriver, startQueueWake } from '@ultimat3/jobs-pg';

const [url, name] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 12 });
pool.on('error', () => undefined);
const executor = pgPoolExecutor(pool);

const record = job({
  name: 'fleet.record',
  queue: 'fleet',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: async ({ input, jobId }) => {
    await pool.query('insert into fleet_done (job_id, n, worker) values ($1, $2, $3)', [
      jobId,
      input.n,
      name,
    ]);
  },
});

async function main(): Promise<void> {
  const registry = new JobRegistry();
  registry.register(record);
  const worker = jobWorker({
    driver: postgresJobDriver({ executor }),
    registry,
    concurrency: 10,
    workerId: `fleet-${name}`,
  });
  const wake = startQueueWake({
    listener: () => new Client({ connectionString: url }),
    executor,
    target: worker,
  });
  await wake.ready();
  await worker.start();
  process.once('SIGTERM', () => {
    worker.beginDrain('SIGTERM');
    void worker
      .stop()
      .then(() => wake.stop())
      .then(() => pool.end())
      .then(() => {
        process.send?.({ type: 'stopped', stats: worker.stats() });
        process.disconnect?.();
      });
  });
  process.send?.({ type: 'ready', live: wake.live() });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
