/**
 * @ultimat3/jobs on PostgreSQL as an app runs it at the README defaults: `postgresBackend({ url })` (pool of 10), a
 * `jobWorker` at concurrency 10 with the backend's cross-process wake, jobs enqueued through a handle's `enqueue()`.
 */
import { jobs, jobsPg } from '../lib.mjs';

export const label = 'ours';
export const store = 'pg';

/** What the current worker is told of each body start (handles are declared once per process). */
let onJob = () => undefined;
const handles = new Map();

/** The handle of the no-op job served on `queue`: input `{ n, t }`, keyed by `n`. */
function handleOf(queue) {
  if (!handles.has(queue))
    handles.set(
      queue,
      jobs.job({
        name: `bench.${queue}`,
        queue,
        input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
        idempotencyKey: ({ n }) => `n:${n}`,
        tenant: 'none',
        run: ({ input }) => onJob(input),
      }),
    );
  return handles.get(queue);
}

/** Migrates the fresh database. */
export async function prepare({ url }) {
  const backend = await jobsPg.postgresBackend({ url });
  await backend.close();
  return { url };
}

export async function producer({ url }) {
  const backend = await jobsPg.postgresBackend({ url }, { migrate: false });
  jobs.setJobsFacade(jobs.directJobsFacade({ driver: backend.driver }));
  return {
    enqueue: (queue, data) => handleOf(queue).enqueue(data),
    enqueueBatch: (queue, datas) => handleOf(queue).enqueueMany(datas),
    close: () => backend.close(),
  };
}

export async function worker({ url }, { queue, concurrency, onJob: told }) {
  onJob = told;
  const backend = await jobsPg.postgresBackend({ url }, { migrate: false });
  const registry = new jobs.JobRegistry();
  registry.register(handleOf(queue));
  const running = jobs.jobWorker({
    driver: backend.driver,
    registry,
    concurrency,
    events: backend.events,
  });
  const wake = backend.startWake?.(running, jobs.silentLogger);
  await wake?.ready();
  await running.start();
  return {
    async stop() {
      await running.stop();
      await wake?.stop();
      await backend.close();
    },
  };
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
