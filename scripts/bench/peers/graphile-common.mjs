/**
 * What both graphile-worker adapters share (`graphile-worker.mjs` for 0.17, `graphile-worker-016.mjs` for 0.16): the
 * migrations, the worker — one `run()` of the no-op task at the asked concurrency, its signals and cron off — and the
 * count of jobs left. `lib` is the version's module; `workerPreset` its `run()` preset (0.17's batched mode), if any.
 */
export function graphileAdapter(lib, { workerPreset } = {}) {
  const silent = new lib.Logger(() => () => undefined);
  return {
    silent,
    async prepare({ url }) {
      await lib.runMigrations({ connectionString: url, logger: silent });
      return { url };
    },
    async worker({ url }, { queue, concurrency, onJob }) {
      const runner = await lib.run({
        connectionString: url,
        concurrency,
        noHandleSignals: true,
        logger: silent,
        taskList: { [queue]: async (payload) => onJob(payload) },
        crontab: '',
        ...(workerPreset === undefined ? {} : { preset: workerPreset(concurrency) }),
      });
      return { stop: () => runner.stop() };
    },
    /** Jobs of `queue` not finished yet (graphile-worker deletes a job when it completes). */
    async outstanding(_ctx, queue, sql) {
      const rows = await sql(
        'select count(*)::int as n from graphile_worker.jobs where task_identifier = $1',
        [queue],
      );
      return rows[0].n;
    },
  };
}
