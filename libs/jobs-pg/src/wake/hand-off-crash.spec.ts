import { Client, type Notification } from 'pg';
import type { EnqueueRequest } from '@ultimat3/jobs';
import { until } from '../../../../test/until';
import { request as pgRequest } from '../../test/requests';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { spawnWorker, type Spawned } from '../../test/worker-process';
import { postgresJobDriver } from '../driver/pg-driver';
import { handOffChannel } from './pg-hand-off';

const JOBS = 400;
const KILL_AT = 150;
/** The workers' visibility timeout: how long a row handed to the killed worker waits to be rescued. */
const VT = 2_000;

type Fleet = Spawned<{ live: boolean }, { stats: { completed: number } }>;

const request = (n: number): EnqueueRequest =>
  pgRequest({ name: 'fleet.record', queue: 'fleet', input: { n }, idempotencyKey: `n:${n}` });

/**
 * Two worker processes taking rows handed to them by single enqueues, one SIGKILLed midway: no row is handed to it
 * once its session is gone, the rows it held are rescued when their leases lapse, and every job completes — at least
 * once, and twice only where the killed worker ran a body whose ack it never sent.
 */
describe('the hand-off through a worker killed with SIGKILL', () => {
  const workers: Fleet[] = [];
  let spy: Client | undefined;
  const db = pgJobsSpec({
    beforeDrop: async () => {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
      await spy?.end();
    },
  });
  beforeAll(async () => {
    await db.pool.query(
      'create table fleet_done (job_id uuid not null, n int not null, worker text not null)',
    );
  });

  it('hands nothing to the dead worker, rescues what it held, and completes every job', async () => {
    // every notification on either worker's channel reaches every listener: the spec hears each hand-off
    const heard: { worker: string; n: number; at: number }[] = [];
    spy = new Client({ connectionString: db.url });
    await spy.connect();
    const channels = new Map(['a', 'b'].map((w) => [handOffChannel(`fleet-${w}`), w]));
    spy.on('notification', (m: Notification) => {
      const worker = channels.get(m.channel);
      if (m.payload?.startsWith('flush/')) return; // a stopping worker's own marker
      const row = JSON.parse(m.payload ?? '{}') as { input?: { n?: number } };
      if (worker !== undefined && typeof row.input?.n === 'number')
        heard.push({ worker, n: row.input.n, at: Date.now() });
    });
    for (const channel of channels.keys()) await spy.query(`listen ${channel}`);

    const spawned = new Map(
      ['a', 'b'].map((w) => [
        w,
        spawnWorker('fleet-worker.ts', [db.url, w, String(VT)], w) as Fleet,
      ]),
    );
    workers.push(...spawned.values());
    expect((await Promise.all(workers.map((w) => w.ready))).map((r) => r.live)).toEqual([
      true,
      true,
    ]);
    const registered = async (): Promise<string[]> =>
      (
        await db.pool.query<{ worker_id: string }>(
          'select worker_id from x_job_hand_offs order by 1',
        )
      ).rows.map((r) => r.worker_id);
    await until(async () => (await registered()).length === 2);

    const driver = postgresJobDriver({ executor: db.executor });
    const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 3));
    for (let n = 0; n < KILL_AT; n++) {
      await driver.enqueue(request(n));
      await pause();
    }
    // the victim: the worker rows were handed to (an enqueue takes the first live registration with a free slot,
    // so one worker may have taken them all); the other survives
    const handedTo = (w: string): number => heard.filter((h) => h.worker === w).length;
    const victim = handedTo('a') >= handedTo('b') ? 'a' : 'b';
    const survivor = victim === 'a' ? 'b' : 'a';
    const dead = spawned.get(victim)!;
    const alive = spawned.get(survivor)!;
    dead.child.kill('SIGKILL');
    await new Promise((resolve) => dead.child.once('exit', resolve));
    // its session is gone once the server let its lock go: a try of the lock succeeds
    await until(async () => {
      const { rows } = await db.pool.query<{ free: boolean }>(
        'select pg_try_advisory_lock_shared(2020239471, hashtext($1)) as free',
        [`fleet-${victim}`],
      );
      if (rows[0]?.free) {
        await db.pool.query('select pg_advisory_unlock_shared(2020239471, hashtext($1))', [
          `fleet-${victim}`,
        ]);
      }
      return rows[0]?.free === true;
    });
    const deadAt = Date.now();
    for (let n = KILL_AT; n < JOBS; n++) {
      await driver.enqueue(request(n));
      await pause();
    }

    const done = async (): Promise<number> =>
      (
        await db.pool.query<{ n: number }>(
          "select count(*)::int as n from x_jobs where state = 'done'",
        )
      ).rows[0]?.n ?? 0;
    await until(async () => (await done()) === JOBS, 30_000);
    alive.child.kill('SIGTERM');
    await alive.stopped;

    expect(heard.filter((h) => h.worker === victim && h.n < KILL_AT).length).toBeGreaterThan(0);
    expect(heard.filter((h) => h.worker === survivor && h.n >= KILL_AT).length).toBeGreaterThan(0);
    expect(heard.filter((h) => h.worker === victim && h.at > deadAt)).toEqual([]);
    const { rows: runs } = await db.pool.query<{ n: number; runs: number; by: string[] }>(
      'select n, count(*)::int as runs, array_agg(worker order by worker) as by from fleet_done group by n',
    );
    expect(runs).toHaveLength(JOBS);
    // a job ran twice only where the killed worker ran it and never acked: at most its 10 slots
    const twice = runs.filter((r) => r.runs > 1);
    expect(twice.length).toBeLessThanOrEqual(10);
    for (const r of twice) expect(r).toMatchObject({ runs: 2, by: [victim, survivor].sort() });
    for (const r of twice) expect(r.by.filter((w) => w === victim)).toHaveLength(1);
    expect(await registered()).toEqual([]);
  }, 60_000);
});
