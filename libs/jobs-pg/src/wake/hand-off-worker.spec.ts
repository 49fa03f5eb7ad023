import { Client } from 'pg';
import { job, JobRegistry, jobWorker, t, type ClaimedJob, type JobWorker } from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import { statementsFor } from '../driver/statements';
import { migrate } from '../migrations/migrate';
import type { QueueWake } from './queue-wake';
import { startWorkerWake } from './worker-wake';

const ran: number[] = [];
const handed = job({
  name: 'pg.handed',
  queue: 'handed-q',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: ({ input }) => {
    ran.push(input.n);
  },
});

/**
 * A real `jobWorker` with the hand-off on a real LISTEN session: it registers once idle, another process's enqueue
 * (its own pool and driver) hands it rows, each run exactly once, and its stop leaves nothing registered.
 */
describe('a worker taking rows handed to it on PostgreSQL', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  let worker: JobWorker | undefined;
  let wake: QueueWake | undefined;
  afterEach(async () => {
    await wake?.stop();
    await worker?.stop();
    wake = worker = undefined;
    ran.length = 0;
  });

  const registrations = async (
    schema = 'public',
  ): Promise<{ queue: string; free: number; names: string[] }[]> =>
    (await db.pool.query(`select queue, free, names from ${schema}.x_job_hand_offs`)).rows;

  async function start(schema?: string): Promise<ClaimedJob[]> {
    const registry = new JobRegistry();
    registry.register(handed);
    const w = jobWorker({
      driver: postgresJobDriver({
        executor: db.executor,
        ...(schema === undefined ? {} : { schema }),
      }),
      registry,
      concurrency: 4,
    });
    worker = w;
    const given: ClaimedJob[] = [];
    const take = w.handOff.takeClaimed;
    const target = Object.assign(Object.create(w) as JobWorker, {
      handOff: {
        ...w.handOff,
        takeClaimed: (rows: readonly ClaimedJob[]) => (given.push(...rows), take(rows)),
      },
    });
    wake = startWorkerWake({
      listener: () => new Client({ connectionString: db.url }),
      executor: db.executor,
      target,
      ...(schema === undefined ? {} : { schema, sql: statementsFor(schema) }),
    });
    expect(await wake.ready()).toBe(true);
    await w.start();
    return given;
  }

  it('registers once idle, runs every row handed to it once, and leaves no registration behind', async () => {
    const given = await start();
    await until(async () => (await registrations()).length === 1);
    expect(await registrations()).toEqual([{ queue: 'handed-q', free: 4, names: ['pg.handed'] }]);

    // another process: its own driver over its own pool
    const producer = postgresJobDriver({ executor: db.executor });
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) {
      const { id } = await producer.enqueue(
        request({ name: 'pg.handed', queue: 'handed-q', input: { n }, idempotencyKey: `n:${n}` }),
      );
      ids.push(id);
      await until(() => ran.includes(n));
    }
    expect([...ran].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    // nearly all went straight to the worker: an enqueue that meets the registration while the worker rewrites it
    // passes it by (skip locked), and its row waits for the worker's next pass instead
    expect(given.length).toBeGreaterThanOrEqual(15);
    expect(new Set(given.map((row) => row.id)).size).toBe(given.length);
    await until(async () => {
      const { rows } = await db.pool.query<{ n: number }>(
        "select count(*)::int as n from x_jobs where state = 'done'",
      );
      return rows[0]?.n === 20;
    });
    await wake?.stop();
    expect(await registrations()).toEqual([]);
  });

  it('registers and hands rows over in a schema of its own, leaving the default one untouched', async () => {
    await migrate(db.executor, { schema: 'jobs_ho' });
    const given = await start('jobs_ho');
    await until(async () => (await registrations('jobs_ho')).length === 1);
    expect(await registrations()).toEqual([]);
    const producer = postgresJobDriver({ executor: db.executor, schema: 'jobs_ho' });
    for (let n = 0; n < 10; n++) {
      await producer.enqueue(
        request({ name: 'pg.handed', queue: 'handed-q', input: { n }, idempotencyKey: `n:${n}` }),
      );
      await until(() => ran.includes(n));
    }
    expect(given.length).toBeGreaterThanOrEqual(7);
    const { rows } = await db.pool.query<{ at: string; n: number }>(
      `select 'jobs_ho' as at, count(*)::int as n from jobs_ho.x_jobs
       union all select 'public', count(*)::int from public.x_jobs`,
    );
    expect(rows).toEqual([
      { at: 'jobs_ho', n: 10 },
      { at: 'public', n: 0 },
    ]);
    await wake?.stop();
    expect(await registrations('jobs_ho')).toEqual([]);
  });
});
