import { join } from 'node:path';
import { Pool } from 'pg';
import { notifySubscribers } from '@ultimat3/example-jobs';
import { prepareEnqueue } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresJobDriver, postgresOutboxStore } from '@ultimat3/jobs-pg';
import { startOwnedPostgres, type OwnedPostgres } from '../../../libs/jobs-pg/test/owned-postgres';
import { spawnWorkerEntry, until, type WorkerProcess } from './support/worker-process';

const ORG = '0190a6f2-6b1e-7c3a-8f00-00000000e2e0';

/**
 * The worker app itself (`apps/worker/src/main.ts`: roles worker, scheduler and relay, TypeORM's pool, no keep-alive)
 * on a PostgreSQL of its own that the test stops and starts again — a real restart, every session cut and every
 * connection refused meanwhile. It used to exit 0 at that moment, without a word: its sockets closed and nothing else
 * held the event loop. It must stay up, and each role must come back by itself.
 */
describe('the worker process through a PostgreSQL restart', () => {
  let pg: OwnedPostgres | undefined;
  let worker: WorkerProcess | undefined;
  let pool: Pool | undefined;

  afterAll(async () => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    await pool?.end();
    await pg?.close();
  });

  const state = async (id: string): Promise<string | undefined> => {
    const { rows } = await pool!.query<{ state: string }>(
      'select state from x_jobs where id = $1',
      [id],
    );
    return rows[0]?.state;
  };
  const done = (what: string, id: string): Promise<true> =>
    until(what, async () => ((await state(id)) === 'done' ? true : undefined), 30_000);
  /** When the scheduler's lease row (renewed by the leader every 10 s) expires, on the database clock. */
  const leaseExpiry = async (): Promise<number | undefined> => {
    const { rows } = await pool!.query<{ at: string }>(
      `select (extract(epoch from expires_at) * 1000)::bigint::text as at from x_job_leases where key = 'x:scheduler'`,
    );
    return rows[0] === undefined ? undefined : Number(rows[0].at);
  };

  it('stays up, then runs a job enqueued and a job staged after the restart, renews its scheduler lease, and exits 0 on SIGTERM', async () => {
    pg = await startOwnedPostgres('restartable');
    worker = spawnWorkerEntry(
      join(__dirname, 'support', 'worker-main.js'),
      { DATABASE_URL: pg.url },
      'worker started',
    );
    await worker.ready;
    pool = new Pool({ connectionString: pg.url, max: 2 });
    pool.on('error', () => undefined); // the restart ends this test's idle sessions too
    const driver = postgresJobDriver({ executor: pgPoolExecutor(pool) });
    const before = await prepareEnqueue(
      notifySubscribers,
      { postId: '0190a6f2-6b1e-7c3a-8f00-00000000e2e1', orgId: ORG },
      {},
      undefined,
      Date.now(),
    );
    await driver.enqueue(before);
    await done('a job before the restart', before.id);
    await until('the scheduler to lead', leaseExpiry, 30_000);

    const leasedUntil = (await leaseExpiry())!;
    await pg.stop();
    // down long enough for every role to fail a round: claims, the wake, the relay's pass, the lease renewal
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect({ exitCode: worker.child.exitCode, signal: worker.child.signalCode }).toEqual({
      exitCode: null,
      signal: null,
    });
    await pg.start();

    const after = await prepareEnqueue(
      notifySubscribers,
      { postId: '0190a6f2-6b1e-7c3a-8f00-00000000e2e2', orgId: ORG },
      {},
      undefined,
      Date.now(),
    );
    await driver.enqueue(after);
    await done('the worker to run a job enqueued after the restart', after.id);

    const staged = await prepareEnqueue(
      notifySubscribers,
      { postId: '0190a6f2-6b1e-7c3a-8f00-00000000e2e3', orgId: ORG },
      {},
      undefined,
      Date.now(),
    );
    await postgresOutboxStore({ executor: pgPoolExecutor(pool) }).stage(staged);
    await done(
      'the relay to publish, and the worker to run, a job staged after the restart',
      staged.id,
    );

    // the leader renews every 10 s; nothing could renew while the server was down, so a later expiry is a renewal
    // made after the restart
    await until(
      'the scheduler to renew its lease after the restart',
      async () => ((await leaseExpiry())! > leasedUntil ? true : undefined),
      30_000,
    );

    worker.child.kill('SIGTERM');
    const exit = await worker.exited;
    expect({ exit, output: exit.code === 0 ? '' : worker.output() }).toEqual({
      exit: { code: 0, signal: null },
      output: '',
    });
  }, 120_000);
});
