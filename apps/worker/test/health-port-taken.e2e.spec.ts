import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'pg';
import { notifySubscribers } from '@ultimat3/example-jobs';
import { prepareEnqueue } from '@ultimat3/jobs';
import { migrate, pgPoolExecutor, postgresJobDriver } from '@ultimat3/jobs-pg';
import { startOwnedPostgres, type OwnedPostgres } from '../../../libs/jobs-pg/test/owned-postgres';
import { spawnWorkerEntry, type WorkerProcess } from './support/worker-process';

const ORG = '0190a6f2-6b1e-7c3a-8f00-00000000e3e0';

/**
 * The worker app itself (`apps/worker/src/main.ts`) whose `HEALTH_PORT` is taken: `app.listen()` bootstraps first, so
 * the worker, the relay and the scheduler already run when the listen fails. It exits non-zero — after closing the
 * app (the roles drained, a claimed run handed back, the driver closed), not with them still running, which left a run
 * claimed in that gap stranded until its lease lapsed.
 */
describe('the worker process whose HEALTH_PORT is taken', () => {
  let pg: OwnedPostgres | undefined;
  let worker: WorkerProcess | undefined;
  let pool: Pool | undefined;
  let holder: Server | undefined;

  afterAll(async () => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    // pool.end() answers before its sockets have closed, so the server's stop below can still reach one of them
    // (57P01), which an idle client hands to its pool as an 'error' event: heard here, in the teardown only
    pool?.on('error', () => undefined);
    await pool?.end();
    await pg?.close();
    await new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve()));
  });

  it('drains the roles it started, then exits non-zero with no run left claimed', async () => {
    pg = await startOwnedPostgres('restartable');
    pool = new Pool({ connectionString: pg.url, max: 2 });
    await migrate(pgPoolExecutor(pool));
    const driver = postgresJobDriver({ executor: pgPoolExecutor(pool) });
    for (let i = 0; i < 20; i++) {
      const hex = (0xe3e1 + i).toString(16);
      await driver.enqueue(
        await prepareEnqueue(
          notifySubscribers,
          { postId: `0190a6f2-6b1e-7c3a-8f00-00000000${hex}`, orgId: ORG },
          {},
          undefined,
          Date.now(),
        ),
      );
    }
    holder = createServer();
    const port = await new Promise<number>((resolve) => {
      holder!.listen(0, '0.0.0.0', () => resolve((holder!.address() as { port: number }).port));
    });

    worker = spawnWorkerEntry(
      join(__dirname, 'support', 'worker-main.js'),
      { DATABASE_URL: pg.url, HEALTH_PORT: String(port) },
      'worker started',
    );
    const exit = await worker.exited;
    const output = worker.output();
    expect({ code: exit.code, inUse: output.includes('EADDRINUSE') }).toEqual({
      code: 1,
      inUse: true,
    });
    // the app was closed before the exit: the roles stopped, the worker's drain done
    expect(output).toContain('jobs.module.stopping');
    expect(output).toContain('jobs.worker.stopped');
    const { rows } = await pool.query<{ n: string }>(
      `select count(*)::text as n from x_jobs where state = 'running'`,
    );
    expect(rows[0]?.n).toBe('0');
  }, 60_000);
});
