/**
 * graphile-worker 0.16 (installed as `graphile-worker-016`), the release before the batched mode: one `run()` at
 * concurrency 10, each job fetched and completed by a statement of its own, on LISTEN/NOTIFY with its 2 s poll. Jobs
 * are added through `makeWorkerUtils().addJob` one at a time; 0.16 has no `addJobs()`, so a batch goes through its
 * documented SQL function `graphile_worker.add_jobs(job_spec[])` in one statement, its specs sent as one JSON text —
 * the statement 0.17's `addJobs()` sends.
 */
import { Logger, makeWorkerUtils, run, runMigrations } from 'graphile-worker-016';

export const label = 'graphile-worker 0.16';
export const store = 'pg';

const silent = new Logger(() => () => undefined);

const ADD_JOBS = `select count(*)::int as added from graphile_worker.add_jobs(
  array(select json_populate_recordset(null::graphile_worker.job_spec, $1::json)), false)`;

export async function prepare({ url }) {
  await runMigrations({ connectionString: url, logger: silent });
  return { url };
}

export async function producer({ url }) {
  const utils = await makeWorkerUtils({ connectionString: url, logger: silent });
  return {
    enqueue: (queue, data) => utils.addJob(queue, data),
    enqueueBatch: (queue, datas) =>
      utils.withPgClient((client) =>
        client.query(ADD_JOBS, [
          JSON.stringify(datas.map((payload) => ({ identifier: queue, payload }))),
        ]),
      ),
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
