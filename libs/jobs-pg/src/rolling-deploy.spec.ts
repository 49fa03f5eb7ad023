import type { EnqueueRequest, WorkerStats } from '@ultimat3/jobs';
import { until } from '../../../test/until';
import { request as pgRequest } from '../test/requests';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import {
  spawnWorker as spawnWorkerProcess,
  type Spawned as WorkerProcess,
} from '../test/worker-process';
import { postgresJobDriver } from './driver/pg-driver';

const EXISTING = 'deploy.existing';
const ADDED = 'deploy.added';

interface Stopped {
  readonly stats: WorkerStats;
  readonly claimedNames: readonly string[];
  readonly events: readonly { level: string; event: string; fields: unknown }[];
}

type Spawned = WorkerProcess<unknown, Stopped>;

/** Starts one worker process of `build` from source (see `test/deploy-worker.ts`). */
const spawnWorker = (url: string, build: 'old' | 'new'): Spawned =>
  spawnWorkerProcess('deploy-worker.ts', [url, build], build);

let seq = 0;
function request(name: string): EnqueueRequest {
  const n = seq++;
  return pgRequest({ name, queue: 'deploy', input: { n }, idempotencyKey: `n:${n}` });
}

/**
 * A rolling deploy that adds a job: the old build's worker and the new build's worker serve one queue of one real
 * PostgreSQL, in two processes. Only the new worker ever claims the added job; the old one never attempts it, never
 * dead-letters it, and leaves it waiting — visible per name in `stats()` — until a worker that knows it arrives.
 */
describe('rolling deploy: an old and a new worker process on one queue', () => {
  const workers: Spawned[] = [];

  const db = pgJobsSpec({
    beforeDrop: async () => {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    },
  });
  beforeAll(async () => {
    await db.pool.query(
      'create table deploy_runs (job_id uuid not null, name text not null, build text not null, attempt int not null)',
    );
  });

  const count = async (where: string): Promise<number> => {
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from x_jobs where ${where}`,
    );
    return rows[0]?.n ?? 0;
  };

  it('only the new worker claims the added job; the old one never attempts nor buries it', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const old = spawnWorker(db.url, 'old');
    workers.push(old);
    await old.ready;

    // the new build's web pods enqueue the added job before any new worker is up; its rows are first in line
    await driver.enqueueMany(Array.from({ length: 40 }, () => request(ADDED)));
    await driver.enqueueMany(Array.from({ length: 40 }, () => request(EXISTING)));
    await until(async () => (await count(`name = '${EXISTING}' and state = 'done'`)) === 40);
    // seconds of the old worker alone: its wake and idle polls claim over the added rows again and again
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(
      await db.pool.query(
        `select state, attempt, worker_id, last_error, count(*)::int as n from x_jobs where name = $1
         group by 1, 2, 3, 4`,
        [ADDED],
      ),
    ).toMatchObject({
      rows: [{ state: 'ready', attempt: 0, worker_id: null, last_error: null, n: 40 }],
    });
    const waiting = (await driver.stats()).find((s) => s.queue === 'deploy');
    expect(waiting?.names.find((entry) => entry.name === ADDED)).toMatchObject({
      ready: 40,
      running: 0,
    });

    const next = spawnWorker(db.url, 'new');
    workers.push(next);
    await next.ready;
    await until(async () => (await count(`name = '${ADDED}' and state = 'done'`)) === 40);

    // the overlap: both builds serve the queue while both jobs keep arriving
    for (let i = 0; i < 4; i++) {
      await driver.enqueueMany(
        Array.from({ length: 50 }, (_, k) => request(k % 2 === 0 ? ADDED : EXISTING)),
      );
    }
    await until(async () => (await count(`state <> 'done'`)) === 0, 20_000);

    // the old build retires; what it leaves behind is the new worker's, the name it always knew included (while
    // both served, the idle old worker may have taken every existing job before the busy new one reached one)
    old.child.kill('SIGTERM');
    const fromOld = await old.stopped;
    await driver.enqueueMany(Array.from({ length: 10 }, () => request(EXISTING)));
    await until(async () => (await count(`state <> 'done'`)) === 0, 20_000);
    next.child.kill('SIGTERM');
    const fromNew = await next.stopped;

    expect(await count(`state <> 'done'`)).toBe(0);
    // every added job ran once, on its first attempt, in the new build — the old one never attempted it
    expect(await count(`name = '${ADDED}' and attempt <> 1`)).toBe(0);
    const { rows: runs } = await db.pool.query<{ build: string; runs: number; jobs: number }>(
      `select build, count(*)::int as runs, count(distinct job_id)::int as jobs from deploy_runs where name = $1
       group by build`,
      [ADDED],
    );
    expect(runs).toEqual([{ build: 'new', runs: 140, jobs: 140 }]);

    expect(fromOld?.claimedNames).toEqual([EXISTING]);
    expect(fromOld?.stats).toMatchObject({ deadLettered: 0, retried: 0, dropped: 0 });
    // every existing job ran once, the first 40 in the old build; how the overlap split them is the race's to say
    const { rows: existing } = await db.pool.query<{ runs: number; jobs: number; old: number }>(
      `select count(*)::int as runs, count(distinct job_id)::int as jobs,
              count(*) filter (where build = 'old')::int as old from deploy_runs where name = $1`,
      [EXISTING],
    );
    expect(existing).toEqual([{ runs: 150, jobs: 150, old: fromOld?.stats.completed }]);
    expect(fromOld?.stats.completed).toBeGreaterThanOrEqual(40);
    expect(fromOld?.events.filter((e) => e.event.startsWith('jobs.attempt'))).toEqual([]);
    expect(fromNew?.claimedNames).toEqual([ADDED, EXISTING]);
    expect(fromNew?.stats.deadLettered).toBe(0);
  }, 60_000);
});
