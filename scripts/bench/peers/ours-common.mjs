/**
 * What both of our adapters (`ours.mjs` on PostgreSQL, `ours-redis.mjs` on Redis) share: the no-op job, the producer
 * and the worker as an app runs them. An adapter supplies how to open its backend and how to wait for its wake.
 */
import { jobs } from '../lib.mjs';

/** What the current worker is told of each body start (handles are declared once per process). */
let onJob = () => undefined;
const handles = new Map();

/** The queues the benchmarks enqueue into (`scenarios.mjs`, `producer-child.mjs`, `quiet-spell.mjs`). */
const BENCH_QUEUES = ['warm', 'pickup', 'drain', 'serial'];

/**
 * The handle of the no-op job served on `queue`: input `{ n, t }`, keyed by `n`. Named `peers.<queue>`, apart from the
 * `bench.*` jobs `npm run bench` declares in the process that also runs these adapters (its Redis section).
 */
export function handleOf(queue) {
  if (!handles.has(queue))
    handles.set(
      queue,
      jobs.job({
        name: `peers.${queue}`,
        queue,
        input: jobs.t.object({ n: jobs.t.number, t: jobs.t.number }),
        idempotencyKey: ({ n }) => `n:${n}`,
        tenant: 'none',
        run: ({ input }) => onJob(input),
      }),
    );
  return handles.get(queue);
}

/**
 * The producer and worker of one of our backends. `open(ctx)` answers a backend; `startWake(backend, running)`
 * starts its cross-process wake and resolves once it is live, answering something with `stop()`.
 */
export function oursAdapter({ open, startWake }) {
  return {
    async producer(ctx) {
      const backend = await open(ctx);
      jobs.setJobsFacade(jobs.directJobsFacade({ driver: backend.driver }));
      // an app declares its jobs as it starts, not inside its first enqueue (declaring one loads the tracing peer)
      for (const queue of BENCH_QUEUES) handleOf(queue);
      return {
        enqueue: (queue, data) => handleOf(queue).enqueue(data),
        enqueueBatch: (queue, datas) => handleOf(queue).enqueueMany(datas),
        close: () => backend.close(),
      };
    },
    async worker(ctx, { queue, concurrency, onJob: told }) {
      onJob = told;
      const backend = await open(ctx);
      const registry = new jobs.JobRegistry();
      registry.register(handleOf(queue));
      const running = jobs.jobWorker({
        driver: backend.driver,
        registry,
        concurrency,
        events: backend.events,
      });
      const wake = await startWake(backend, running);
      await running.start();
      return {
        async stop() {
          await running.stop();
          await wake?.stop();
          await backend.close();
        },
      };
    },
  };
}
