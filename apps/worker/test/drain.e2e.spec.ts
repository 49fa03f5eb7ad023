import { directJobsFacade, setJobsFacade } from '@ultimat3/jobs';
import { postgresJobDriver } from '@ultimat3/jobs-pg';
import { pgJobsSpec } from '../../../libs/jobs-pg/test/pg-jobs-spec';
import { PROBE_TABLES, probeDrain } from './support/probe-jobs';
import { spawnProbeWorker, until, type WorkerProcess } from './support/worker-process';

/**
 * The drain through a REAL Nest bootstrap and a REAL signal: an app that never called `enableShutdownHooks()` had
 * SIGTERM kill workers mid-job, and the job ran again ten minutes later with an attempt used up.
 */
describe('worker process: SIGTERM drains through Nest and hands the run back uncounted', () => {
  let uninstall: () => void;
  const children: WorkerProcess[] = [];

  // the worker's JobsModule migrates at boot
  const db = pgJobsSpec({
    migrate: false,
    beforeDrop: async () => {
      for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
      uninstall?.();
    },
  });
  beforeAll(async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    uninstall = setJobsFacade(directJobsFacade({ driver }));
  });

  const row = async (id: string) => {
    const { rows } = await db.pool.query<{ state: string; attempt: number; last_error: string }>(
      'select state, attempt, last_error from x_jobs where id = $1',
      [id],
    );
    return rows[0];
  };

  it('an attempts: 1 job waiting on its signal goes back to ready, attempt 0; the child exits 0; another worker completes it', async () => {
    const first = spawnProbeWorker(db.url, { PROBE_DRAIN_BLOCK: '1' });
    children.push(first);
    await first.ready;
    await db.pool.query(PROBE_TABLES);

    const { id } = await probeDrain.enqueue({ n: 1 });
    await until('the run to start in the first worker', async () => {
      const { rows } = await db.pool.query('select pid from probe_runs where job_id = $1', [id]);
      return rows.length > 0 ? true : undefined;
    });
    expect(await row(id)).toMatchObject({ state: 'running', attempt: 1 });

    first.child.kill('SIGTERM');
    const exit = await first.exited;
    expect({ exit, output: exit.code === 0 ? '' : first.output() }).toEqual({
      exit: { code: 0, signal: null },
      output: '',
    });
    expect(await row(id)).toMatchObject({ state: 'ready', attempt: 0 });

    const second = spawnProbeWorker(db.url);
    children.push(second);
    await second.ready;
    const done = await until('the second worker to complete it', async () => {
      const current = await row(id);
      return current?.state === 'done' ? current : undefined;
    });
    expect(done.attempt).toBe(1);
    const { rows } = await db.pool.query<{ pid: number; ended: boolean }>(
      'select pid, ended_at is not null as ended from probe_runs where job_id = $1 order by started_at',
      [id],
    );
    expect(rows).toEqual([
      { pid: first.pid, ended: false },
      { pid: second.pid, ended: true },
    ]);

    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });
});
