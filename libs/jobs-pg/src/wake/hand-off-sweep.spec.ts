import { Client, type Notification } from 'pg';
import {
  job,
  JobRegistry,
  jobWorker,
  t,
  uuidv7,
  type ClaimedJob,
  type JobWorker,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { until } from '../../../../test/until';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresJobDriver } from '../driver/pg-driver';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { startQueueWake, type QueueWake } from './queue-wake';
import { startWorkerWake } from './worker-wake';
import { WAKE_CHANNEL, WAKE_SLOT_MS, WAKE_SWEEP_CHANNEL } from './wake-session';

const QUEUE = 'sweep-q';
/** The channel the spec's markers travel on: none of the workers listens there. */
const MARKER = 'sweep_spec_marker';
const started: string[] = [];
/** A job of the queue that notes each run's start. */
const noting = (name: string) =>
  job({
    name,
    queue: QUEUE,
    input: t.object({ n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: ({ jobId }) => void started.push(jobId),
  });
const handedJob = noting('sweep.handed');
const otherJob = noting('sweep.other');

/**
 * A handed enqueue announces its slot on the sweep channel, not the wake's: the worker it was handed to runs it, and
 * every listener sweeps for the rows of its slot that skipped their own announcement — here a row of another name,
 * which only a second worker serves, whose poll is a minute away: nothing but that sweep can start it.
 */
describe('the sweep a handed row announces on PostgreSQL', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES, beforeDrop: () => raw?.end() });
  const stops: (() => Promise<void>)[] = [];
  const heard: { channel: string; payload: string }[] = [];
  let raw: Client | undefined;
  beforeAll(async () => {
    raw = new Client({ connectionString: db.url });
    await raw.connect();
    raw.on('notification', (n: Notification) => {
      if ([WAKE_CHANNEL, WAKE_SWEEP_CHANNEL, MARKER].includes(n.channel))
        heard.push({ channel: n.channel, payload: n.payload ?? '' });
    });
    await raw.query(`listen ${WAKE_CHANNEL}`);
    await raw.query(`listen ${WAKE_SWEEP_CHANNEL}`);
    await raw.query(`listen ${MARKER}`);
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    started.length = 0;
    heard.length = 0;
  });

  /**
   * What the statements announced on either channel, read once a marker sent after them came back (a session hears
   * its notifications in commit order, whatever their channels).
   */
  const announced = async (): Promise<{ channel: string; payload: string }[]> => {
    const marker = uuidv7();
    await db.pool.query('select pg_notify($1, $2)', [MARKER, marker]);
    await until(() => heard.some((h) => h.payload === marker));
    return heard.splice(0).filter((h) => h.channel !== MARKER && !h.payload.startsWith('probe/'));
  };

  const worker = (served: typeof handedJob, pollMs: number): ReturnType<typeof jobWorker> => {
    const registry = new JobRegistry();
    registry.register(served);
    const w = jobWorker({
      driver: postgresJobDriver({ executor: db.executor }),
      registry,
      concurrency: 4,
      pollIntervalMs: pollMs,
      idlePollMaxMs: pollMs,
    });
    stops.push(() => w.stop());
    return w;
  };

  const ready = async (wake: QueueWake): Promise<void> => {
    stops.push(() => wake.stop());
    expect(await wake.ready()).toBe(true);
  };

  it('hands the row to its worker, announces the slot on the sweep channel, and the other worker sweeps it', async () => {
    // the handed row's worker, registered for the hand-off
    const taker = worker(handedJob, 60_000);
    const given: ClaimedJob[] = [];
    const take = taker.handOff.takeClaimed;
    await ready(
      startWorkerWake({
        listener: () => new Client({ connectionString: db.url }),
        executor: db.executor,
        target: Object.assign(Object.create(taker) as JobWorker, {
          handOff: {
            ...taker.handOff,
            takeClaimed: (rows: readonly ClaimedJob[]) => (given.push(...rows), take(rows)),
          },
        }),
      }),
    );
    await taker.start();
    // the other name's worker: woken only (no hand-off), its sweep 1 s after what it hears, its poll a minute away
    const sweeper = worker(otherJob, 60_000);
    const woken: string[] = [];
    const swept: string[] = [];
    await ready(
      startQueueWake({
        listener: () => new Client({ connectionString: db.url }),
        executor: db.executor,
        target: sweeper,
        sweepAfterMs: 1_000,
        onWake: (queue, after) => (woken.push(queue), sweeper.signalEnqueued(queue, after)),
        onSweep: (queue, after) => (swept.push(queue), sweeper.signalSweep(queue, after)),
      }),
    );
    await sweeper.start();
    await until(async () => {
      const { rows } = await db.pool.query('select 1 from x_job_hand_offs');
      return rows.length === 1;
    });
    await announced();

    // an enqueuer whose statements fall in one wake slot
    const clock = frozenClock(Math.floor(Date.now() / WAKE_SLOT_MS) * WAKE_SLOT_MS);
    const at = (name: string, n: number) =>
      request({
        name,
        queue: QUEUE,
        input: { n },
        idempotencyKey: `n:${n}`,
        id: uuidv7(clock.now()),
        runAt: clock.now(),
      });
    const first = await postgresJobDriver({ executor: db.executor, clock }).enqueue(
      at('sweep.handed', 1),
    );
    await until(() => started.includes(first.id));
    const late = await db.pool.connect();
    let second: { id: string };
    try {
      await late.query('begin');
      // it sees the handed row committed in its slot: it announces nothing
      second = await postgresJobDriver({ executor: pgPoolExecutor(late), clock }).enqueue(
        at('sweep.other', 2),
      );
      await late.query('commit');
    } finally {
      late.release();
    }
    expect(await announced()).toEqual([{ channel: WAKE_SWEEP_CHANNEL, payload: QUEUE }]);
    expect(given.map((row) => row.id)).toEqual([first.id]);
    await until(() => started.includes(second.id));
    // heard as a sweep alone: no pass at once, one a second after it (the poll is a minute away)
    expect(swept).toEqual([QUEUE]);
    expect(woken).toEqual([]);
  });
});
