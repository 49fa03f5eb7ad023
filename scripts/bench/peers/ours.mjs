/**
 * @ultimat3/jobs on PostgreSQL as an app runs it at the README defaults: `postgresBackend({ url })` (pool of 10), a
 * `jobWorker` at concurrency 10 with the backend's cross-process wake, jobs enqueued through a handle's `enqueue()`.
 */
import { jobs, jobsPg } from '../lib.mjs';
import { oursAdapter } from './ours-common.mjs';

export const label = 'ours';
export const store = 'pg';

export const { producer, worker } = oursAdapter({
  open: ({ url }) => jobsPg.postgresBackend({ url }, { migrate: false }),
  async startWake(backend, running) {
    const wake = backend.startWake?.(running, jobs.silentLogger);
    await wake?.ready();
    return wake;
  },
});

/** Migrates the fresh database. */
export async function prepare({ url }) {
  const backend = await jobsPg.postgresBackend({ url });
  await backend.close();
  return { url };
}

/** Jobs of `queue` not finished yet; `sql` runs a statement on the bench's own connection to the database. */
export async function outstanding(_ctx, queue, sql) {
  const rows = await sql(
    `select count(*)::int as n from x_jobs
     where queue = $1 and state in ('ready', 'delayed', 'running', 'suspended')`,
    [queue],
  );
  return rows[0].n;
}
