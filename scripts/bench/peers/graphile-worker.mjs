/**
 * graphile-worker 0.17 in its batched mode (https://worker.graphile.org/docs/performance#batching): a local queue
 * fetched ahead of the workers and completions sent in batches, one `run()` at concurrency 10, on LISTEN/NOTIFY with
 * its 2 s poll. Jobs are added through `makeWorkerUtils`: `addJob` one at a time, `addJobs` for a batch.
 */
import * as graphile from 'graphile-worker';
import { graphileAdapter } from './graphile-common.mjs';

export const label = 'graphile-worker 0.17 (batched)';
export const store = 'pg';

const shared = graphileAdapter(graphile, {
  // batched mode: a local queue ten deep per worker, completions and failures gathered for a moment
  workerPreset: (concurrency) => ({
    worker: {
      localQueue: { size: concurrency * 10 },
      completeJobBatchDelay: 0,
      failJobBatchDelay: 0,
    },
  }),
});

export const { prepare, worker, outstanding } = shared;

export async function producer({ url }) {
  const utils = await graphile.makeWorkerUtils({ connectionString: url, logger: shared.silent });
  return {
    enqueue: (queue, data) => utils.addJob(queue, data),
    enqueueBatch: (queue, datas) =>
      utils.addJobs(datas.map((payload) => ({ identifier: queue, payload }))),
    close: () => utils.release(),
  };
}
