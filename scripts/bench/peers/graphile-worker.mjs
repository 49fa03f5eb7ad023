/**
 * graphile-worker 0.17 in its batched mode (https://worker.graphile.org/docs/performance#batching): a local queue
 * fetched ahead of the workers and completions sent in batches, one `run()` at concurrency 10, on LISTEN/NOTIFY with
 * its 2 s poll. Jobs are added through `makeWorkerUtils`: `addJob` one at a time, `addJobs` for a batch.
 */
import { Logger, makeWorkerUtils, run, runMigrations } from 'graphile-worker';

export const label = 'graphile-worker 0.17 (batched)';
export const store = 'pg';

const silent = new Logger(() => () => undefined);

export async function prepare({ url }) {
  await runMigrations({ connectionString: url, logger: silent });
  return { url };
}

export async function producer({ url }) {
  const utils = await makeWorkerUtils({ connectionString: url, logger: silent });
  return {
    enqueue: (queue, data) => utils.addJob(queue, data),
    enqueueBatch: (queue, datas) =>
      utils.addJobs(datas.map((payload) => ({ identifier: queue, payload }))),
    close: () => utils.release(),
  };
}

export async function worker({ url }, { queue, concurrency, onJob }) {
  const runner = await run({
    connectionString: url,
    concurrency,
    noHandleSignals: true,
    logger: silent,
    taskList: { [queue]: async (payload) => onJob(payload) },
    crontab: '',
    preset: {
      worker: {
        // batched mode: a local queue ten deep per worker, completions and failures gathered for a moment
        localQueue: { size: concurrency * 10 },
        completeJobBatchDelay: 0,
        failJobBatchDelay: 0,
      },
    },
  });
  return { stop: () => runner.stop() };
}

/** Jobs of `queue` not finished yet (graphile-worker deletes a job when it completes). */
export async function outstanding(_ctx, queue, sql) {
  const rows = await sql(
    'select count(*)::int as n from graphile_worker.jobs where task_identifier = $1',
    [queue],
  );
  return rows[0].n;
}
