/**
 * One worker process of the two-worker spec (`two-workers.spec.ts`), run from source through `swc-register.js` with
 * an IPC channel. argv: <database url> <worker name> [visibility timeout ms].
 *
 * It serves queue `fleet` at concurrency 10 with a proven wake; each run of `fleet.record` writes one row to
 * `fleet_done` — no unique constraint, so a job completed twice shows up as two rows. Sends `{ type: 'ready' }` once
 * serving; on SIGTERM it drains, sends `{ type: 'stopped', stats }` and exits.
 */
import { Pool } from 'pg';
import { job, JobRegistry, jobWorker, t } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresJobDriver } from '@ultimat3/jobs-pg';
import { serveWorker } from './worker-process';

const [url, name, vt] = process.argv.slice(2);
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
    ...(vt === undefined ? {} : { visibilityTimeoutMs: Number(vt) }),
  });
  await serveWorker({ url, pool, executor, worker, stopped: () => ({ stats: worker.stats() }) });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
