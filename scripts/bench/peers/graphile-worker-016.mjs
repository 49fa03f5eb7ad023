/**
 * graphile-worker 0.16 (installed as `graphile-worker-016`), the release before the batched mode: one `run()` at
 * concurrency 10, each job fetched and completed by a statement of its own, on LISTEN/NOTIFY with its 2 s poll. Jobs
 * are added through `makeWorkerUtils().addJob` one at a time; 0.16 has no `addJobs()`, so a batch goes through its
 * documented SQL function `graphile_worker.add_jobs(job_spec[])` in one statement, its specs sent as one JSON text —
 * the statement 0.17's `addJobs()` sends.
 */
import * as graphile from 'graphile-worker-016';
import { graphileAdapter } from './graphile-common.mjs';

export const label = 'graphile-worker 0.16';
export const store = 'pg';

const shared = graphileAdapter(graphile);

export const { prepare, worker, outstanding } = shared;

const ADD_JOBS = `select count(*)::int as added from graphile_worker.add_jobs(
  array(select json_populate_recordset(null::graphile_worker.job_spec, $1::json)), false)`;

export async function producer({ url }) {
  const utils = await graphile.makeWorkerUtils({ connectionString: url, logger: shared.silent });
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
