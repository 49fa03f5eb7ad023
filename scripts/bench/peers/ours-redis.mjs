/**
 * Ours on Redis (`@ultimat3/jobs-redis`, built code) on the runner's local redis-server: the same no-op job as
 * `ours.mjs`, one deployment prefix, the worker handed the backend's wake (sharded pub/sub, proven before it starts).
 * Redis acknowledges a write before any fsync here (no persistence configured), as for BullMQ.
 */
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, jobs } from '../lib.mjs';

const require = createRequire(import.meta.url);
const jobsRedis = require(join(ROOT, 'libs', 'jobs-redis', 'dist', 'index.js'));

export const label = 'ours (Redis)';
export const store = 'redis';

const PREFIX = 'bench';

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

/** Nothing to install: the runner flushed the server. */
export async function prepare({ redisUrl }) {
  return { redisUrl };
}

export async function producer({ redisUrl }) {
  const backend = await jobsRedis.redisBackend({ url: redisUrl, prefix: PREFIX });
  jobs.setJobsFacade(jobs.directJobsFacade({ driver: backend.driver }));
  return {
    enqueue: (queue, data) => handleOf(queue).enqueue(data),
    enqueueBatch: (queue, datas) => handleOf(queue).enqueueMany(datas),
    close: () => backend.close(),
  };
}

export async function worker({ redisUrl }, { queue, concurrency, onJob: told }) {
  onJob = told;
  const backend = await jobsRedis.redisBackend({ url: redisUrl, prefix: PREFIX });
  const registry = new jobs.JobRegistry();
  registry.register(handleOf(queue));
  const running = jobs.jobWorker({
    driver: backend.driver,
    registry,
    concurrency,
    events: backend.events,
  });
  const wake = backend.startWake(running);
  while (!backend.driver.wake.live) await new Promise((resolve) => setTimeout(resolve, 5));
  await running.start();
  return {
    async stop() {
      await running.stop();
      await wake.stop();
      await backend.close();
    },
  };
}

/** Jobs of `queue` not finished yet (the driver's own queue counts). */
export async function outstanding({ redisUrl }, queue) {
  const backend = await jobsRedis.redisBackend({ url: redisUrl, prefix: PREFIX });
  try {
    const q = (await backend.driver.stats()).find((s) => s.queue === queue);
    if (!q) return 0;
    return ['ready', 'delayed', 'running', 'suspended'].reduce((sum, s) => sum + (q[s] ?? 0), 0);
  } finally {
    await backend.close();
  }
}
