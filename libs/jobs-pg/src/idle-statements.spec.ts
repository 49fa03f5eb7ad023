import { Client } from 'pg';
import { job, JobRegistry, jobWorker, t, type JobWorker } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';
import type { PgExecutor } from './executor/pg-executor';
import { SQL_CLAIM } from './sql/claim.sql';
import { startQueueWake, type QueueWake } from './wake/queue-wake';
import { startWorkerWake } from './wake/worker-wake';

const MINUTE = 60_000;
const VT = 30_000;

const idle = job({
  name: 'pg.idle',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => undefined,
});

/**
 * An idle worker's cost, counted in statements on a real PostgreSQL: its claims, and its registry row renewed every
 * heartbeat interval riding them (`ClaimOptions.presence`), so an idle minute costs 12 statements with a proven wake —
 * and `workers()` lists the worker the whole time. The worker runs on a frozen clock driven a second at a time; each
 * step waits for the statement in flight before the next.
 */
describe('worker idle statements on PostgreSQL', () => {
  let worker: JobWorker | undefined;
  let wake: QueueWake | undefined;

  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  afterEach(async () => {
    await wake?.stop();
    await worker?.stop();
    wake = undefined;
    worker = undefined;
  });

  /** The pool executor, recording every statement sent through it and how many are on the wire. */
  function countingExecutor(): { executor: PgExecutor; texts: string[]; busy: () => boolean } {
    const texts: string[] = [];
    let pending = 0;
    return {
      texts,
      executor: {
        async query(text, values) {
          texts.push(text);
          pending++;
          try {
            return await db.executor.query(text, values);
          } finally {
            pending--;
          }
        },
      },
      busy: () => pending > 0,
    };
  }

  /** Moves the clock `ms` forward a second at a time; after each step the worker's row must be live. */
  async function drive(clock: FrozenClock, busy: () => boolean, ms: number): Promise<void> {
    const operator = postgresJobDriver({ executor: db.executor, clock });
    for (let moved = 0; moved < ms; moved += 1_000) {
      await clock.advance(1_000);
      await until(() => !busy() && clock.pending() > 0);
      const live = (await operator.introspect?.workers()) ?? [];
      expect(live.map((w) => [w.id, w.expiresAt > clock.now()])).toEqual([[worker?.id, true]]);
    }
  }

  async function start(clock: FrozenClock, executor: PgExecutor): Promise<JobWorker> {
    const registry = new JobRegistry();
    registry.register(idle);
    const w = jobWorker({
      driver: postgresJobDriver({ executor, clock }),
      registry,
      clock,
      visibilityTimeoutMs: VT,
    });
    worker = w;
    return w;
  }

  it('12 statements per idle minute with a proven wake, the registry row renewed by its claims', async () => {
    const clock = frozenClock();
    const counted = countingExecutor();
    const w = await start(clock, counted.executor);
    wake = startQueueWake({
      listener: () => new Client({ connectionString: db.url }),
      executor: db.executor,
      target: w,
    });
    expect(await wake.ready()).toBe(true);
    await w.start();
    await drive(clock, counted.busy, 30_000);
    const from = counted.texts.length;
    await drive(clock, counted.busy, MINUTE);
    const minute = counted.texts.slice(from);
    expect(minute).toHaveLength(12);
    expect(minute.every((text) => text === SQL_CLAIM)).toBe(true);

    // the renewals rode them: one heartbeat interval apart, the row never older than that and a half
    const { rows } = await db.pool.query<{ heartbeat_at: Date }>(
      'select heartbeat_at from x_workers',
    );
    expect(clock.now() - rows[0]!.heartbeat_at.getTime()).toBeLessThanOrEqual(VT / 3 + VT / 6);
  });

  it('12 with the hand-off too: its registration is written once on the LISTEN session, never renewed', async () => {
    const clock = frozenClock();
    const counted = countingExecutor();
    const w = await start(clock, counted.executor);
    const session: string[] = [];
    wake = startWorkerWake({
      listener: () => {
        const client = new Client({ connectionString: db.url });
        const query = client.query.bind(client) as (
          text: string,
          values?: unknown[],
        ) => Promise<unknown>;
        return Object.assign(client, {
          query: (text: string, values?: unknown[]) => {
            session.push(text);
            return query(text, values);
          },
        });
      },
      executor: db.executor,
      target: w,
    });
    expect(await wake.ready()).toBe(true);
    await w.start();
    await drive(clock, counted.busy, 30_000);
    const { rows } = await db.pool.query<{ free: number }>('select free from x_job_hand_offs');
    expect(rows).toEqual([{ free: 8 }]); // the worker's default concurrency, all free
    const [pool, own] = [counted.texts.length, session.length];
    await drive(clock, counted.busy, MINUTE);
    expect(counted.texts.slice(pool)).toHaveLength(12);
    expect(counted.texts.slice(pool).every((text) => text === SQL_CLAIM)).toBe(true);
    expect(session.slice(own)).toEqual([]);
  });

  it('30 statements per idle minute without one', async () => {
    const clock = frozenClock();
    const counted = countingExecutor();
    const w = await start(clock, counted.executor);
    await w.start();
    await drive(clock, counted.busy, 30_000);
    const from = counted.texts.length;
    await drive(clock, counted.busy, MINUTE);
    expect(counted.texts.length - from).toBe(30);
  });
});
