import type { EnqueueRequest } from '@ultimat3/jobs';
import { request as pgRequest } from '../test/requests';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import {
  spawnWorker as spawnWorkerProcess,
  type Spawned as WorkerProcess,
} from '../test/worker-process';
import { postgresJobDriver } from './driver/pg-driver';

const JOBS = 20_000;
const BATCH = 500;

type Spawned = WorkerProcess<{ live: boolean }, { stats: { completed: number } }>;

/** Starts one worker process from source (see `test/fleet-worker.ts`). */
const spawnWorker = (url: string, name: string): Spawned =>
  spawnWorkerProcess('fleet-worker.ts', [url, name], name);

const request = (n: number): EnqueueRequest =>
  pgRequest({ name: 'fleet.record', queue: 'fleet', input: { n }, idempotencyKey: `n:${n}` });

describe('two worker processes and one enqueuer against one database', () => {
  const workers: Spawned[] = [];

  const db = pgJobsSpec({
    beforeDrop: async () => {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    },
  });
  beforeAll(async () => {
    await db.pool.query(
      'create table fleet_done (job_id uuid not null, n int not null, worker text not null)',
    );
  });

  it('completes 20,000 jobs, each exactly once, none lost', async () => {
    workers.push(spawnWorker(db.url, 'a'), spawnWorker(db.url, 'b'));
    const ready = await Promise.all(workers.map((w) => w.ready));
    expect(ready.map((r) => r.live)).toEqual([true, true]);

    // the enqueuer: batches land while both workers drain, so they compete for every claim
    const driver = postgresJobDriver({ executor: db.executor });
    for (let n = 0; n < JOBS; n += BATCH) {
      const results = await driver.enqueueMany(
        Array.from({ length: BATCH }, (_, i) => request(n + i)),
      );
      expect(results.every((r) => !r.deduped)).toBe(true);
    }

    const count = async (): Promise<number> => {
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from x_jobs where state = 'done'`,
      );
      return rows[0]?.n ?? 0;
    };
    const deadline = Date.now() + 45_000;
    while ((await count()) < JOBS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    for (const w of workers) w.child.kill('SIGTERM');
    const stopped = await Promise.all(workers.map((w) => w.stopped));

    const { rows: states } = await db.pool.query<{ state: string; n: number }>(
      'select state, count(*)::int as n from x_jobs group by state',
    );
    expect(states).toEqual([{ state: 'done', n: JOBS }]);
    const { rows: done } = await db.pool.query<{
      rows: number;
      distinct: number;
      min: number;
      max: number;
    }>(
      `select count(*)::int as rows, count(distinct n)::int as distinct, min(n) as min, max(n) as max from fleet_done`,
    );
    // every job ran exactly once: as many rows as jobs, no n twice, none missing
    expect(done[0]).toEqual({ rows: JOBS, distinct: JOBS, min: 0, max: JOBS - 1 });
    const { rows: perWorker } = await db.pool.query<{ worker: string; n: number }>(
      'select worker, count(*)::int as n from fleet_done group by worker order by worker',
    );
    // both processes took a share of the work
    expect(perWorker.map((r) => r.worker)).toEqual(['a', 'b']);
    for (const share of perWorker) expect(share.n).toBeGreaterThan(0);
    expect(stopped.map((s) => s?.stats.completed)).toEqual(perWorker.map((r) => r.n));
  }, 90_000);
});
