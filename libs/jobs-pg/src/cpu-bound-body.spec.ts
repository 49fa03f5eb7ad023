import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobRegistry, jobWorker, type JobWorker } from '@ultimat3/jobs';
import { hogWork } from '../test/hog-job';
import { request } from '../test/requests';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { spawnWorker, type Spawned } from '../test/worker-process';
import { postgresJobDriver } from './driver/pg-driver';

/** The hog's visibility timeout: its lease lapses a second after its last heartbeat. */
const VT = 1_000;

type HogProcess = Spawned<
  { live: boolean },
  { stats: { claimed: number; completed: number; leasesLost: number } }
>;

/** The next message of `type` from `child`. */
function next<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string } & T): void => {
      if (m.type !== type) return;
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
  });
}

/**
 * A CPU-bound body starves its own heartbeat (Bull's stalled jobs): a worker process whose body holds the event loop
 * past its visibility timeout loses its lease, another worker re-takes the job and completes it, and when the body
 * comes back (released by the spec only then, so the order is fixed) its step write and its ack are refused — the job completed once, by the worker holding the lease, with
 * the stale attempt's first step kept (it was written under its lease) and nothing written after.
 */
describe('a CPU-bound body that starves its heartbeat (PostgreSQL, two processes)', () => {
  let hog: HogProcess | undefined;
  let rescuer: JobWorker | undefined;
  const db = pgJobsSpec({
    beforeDrop: async () => {
      await rescuer?.stop();
      if (hog?.child.exitCode === null) hog.child.kill('SIGKILL');
    },
  });

  it('is fenced: the job is completed once by the worker that re-took it, the stale step and ack refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hog-'));
    const release = join(dir, 'release');
    hog = spawnWorker('hog-worker.ts', [db.url, release, String(VT)], 'hog');
    expect((await hog.ready).live).toBe(true);
    const hogging = next(hog.child, 'hogging');
    const hogged = next<{ aborted: boolean; after: string }>(hog.child, 'hogged');

    const driver = postgresJobDriver({ executor: db.executor });
    const [enqueued] = await driver.enqueueMany([
      request({ name: 'hog.work', queue: 'hog', input: { n: 1 }, idempotencyKey: 'n:1' }),
    ]);
    await hogging;

    // the other worker, in this process: the same job, whose run records what it saw
    const runs: { attempt: number; before: string }[] = [];
    let completed!: () => void;
    const rescued = new Promise<void>((resolve) => (completed = resolve));
    const work = hogWork(async ({ step, attempt }) => {
      const before = await step.run('before', async () => 'before, by the rescuer');
      await step.run('after', async () => 'after, by the rescuer');
      runs.push({ attempt, before });
      completed();
    });
    const registry = new JobRegistry();
    registry.register(work);
    rescuer = jobWorker({ driver, registry, workerId: 'rescuer', pollIntervalMs: 50 });
    await rescuer.start();

    // the rescuer re-takes the lapsed lease and completes the job while the hog's body still holds its thread; only
    // then is the body let go
    await rescued;
    writeFileSync(release, '');
    const stale = await hogged;
    expect(runs).toEqual([{ attempt: 2, before: 'before, by the hog' }]);
    // its step write was refused on the lease it no longer holds, which aborted the attempt
    expect(stale).toEqual({ type: 'hogged', aborted: true, after: 'X_JOB_LEASE_LOST' });

    hog.child.kill('SIGTERM');
    const stopped = await hog.stopped;
    await rescuer.stop();
    // the hog counts the attempt lost, not completed: its settle was refused
    expect(stopped?.stats).toMatchObject({ claimed: 1, completed: 0, leasesLost: 1 });
    expect(rescuer.stats()).toMatchObject({ completed: 1 });

    expect(await driver.get(enqueued!.id)).toMatchObject({ state: 'done', attempt: 2 });
    const steps = await driver.steps.load(enqueued!.id);
    expect(steps.map((s) => [s.name, s.output, s.attempt])).toEqual([
      ['before', 'before, by the hog', 1],
      ['after', 'after, by the rescuer', 2],
    ]);
    const { rows } = await db.pool.query<{ done: number }>(
      `select coalesce(sum(done), 0)::int as done from x_job_counters where name = 'hog.work'`,
    );
    expect(rows[0]!.done).toBe(1);
    rmSync(dir, { recursive: true, force: true });
  });
});
