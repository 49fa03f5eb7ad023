import {
  claimAndRescue,
  job,
  JobRegistry,
  jobWorker,
  t,
  uuidv7,
  type ClaimedJob,
  type EnqueueRequest,
  type JobRow,
} from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';
import { enqueueRequest } from '../../jobs/test/requests';

const VT = 30_000;
const QUEUE = 'prefetch';

/**
 * Flushes `clock` (one event-loop turn each, no time passing on it) until `done`, for at most `ms` of real time. The
 * bound is real time, not a number of turns: 100,000 turns took under a second on a loaded 2-core VM, and a database
 * answering slowly there (150 ms a statement) left the runs unfinished when they ran out (8 of 10 completed).
 */
async function flushUntil(clock: FrozenClock, done: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await clock.flush();
}

/**
 * A worker claims ahead by default. This pins what that costs when it dies holding prefetched rows (SIGKILL: no
 * statement of its own ever reaches the database again): the rows come back to the queue exactly at the visibility
 * timeout, one attempt spent each as for the runs it died with — and none is buried dead, because a claim never takes
 * ahead a row it would put on its final attempt.
 */
describe('a worker that dies holding prefetched rows (PostgreSQL, driven clock)', () => {
  const db = pgJobsSpec();

  it('leaves them claimable again exactly at the visibility timeout, none dead, no final attempt held', async () => {
    const start = Date.UTC(2026, 0, 1);
    const clockA = frozenClock(start);
    const pgA = postgresJobDriver({ executor: db.executor, clock: clockA });
    // the dying worker's claims on the wire: a wait below ends only once every claim it sent has answered — plain
    // and rescuing alike (its first and idle claims are rescuing ones: one not counted here once took the blockers
    // alone, leased from before the clock's advance, and they lapsed a 100 ms early)
    let claiming = 0;
    const counted = async <T>(claim: () => Promise<T>): Promise<T> => {
      claiming++;
      try {
        return await claim();
      } finally {
        claiming--;
      }
    };
    const driverA: typeof pgA = {
      ...pgA,
      claim: (options) => counted(() => pgA.claim(options)),
      claimRescuing: (options, rescue) => counted(() => pgA.claimRescuing(options, rescue)),
    };
    const release: (() => void)[] = [];
    const handle = job({
      name: 'prefetch.crash',
      queue: QUEUE,
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      // n ≥ 1,000 blocks: the dying worker's slots stay busy, so what it claims ahead stays held
      run: ({ input }) =>
        input.n >= 1_000 ? new Promise<void>((resolve) => release.push(resolve)) : undefined,
    });
    const registry = new JobRegistry();
    registry.register(handle);
    const requestOf = (n: number, runAt: number, maxAttempts: number): EnqueueRequest =>
      enqueueRequest({
        id: uuidv7(runAt),
        name: handle.name,
        queue: QUEUE,
        input: { n },
        idempotencyKey: `n:${n}`,
        runAt,
        maxAttempts,
      });

    const worker = jobWorker({
      driver: driverA,
      registry,
      clock: clockA,
      concurrency: 2,
      visibilityTimeoutMs: VT,
    });
    // a measured rate: 10 quick runs in one 100 ms window (0.1 a ms, a target of 20 rows ahead). Enqueued before
    // the worker starts: rows a minute in the past landing after its first claim would sit below the low water that
    // claim computed (the clock's now less a second) until the next refresh, and this clock hardly moves.
    await driverA.enqueueMany(
      Array.from({ length: 10 }, (_, n) => requestOf(n, start - 60_000, 3)),
    );
    await worker.start();
    worker.signalEnqueued(QUEUE);
    // each flush is one turn of the event loop: the database answers in between (no time passes on the clock)
    // and no claim of the worker is still out when the backlog lands: under load one sent as the last quick run
    // freed its slot could run after the backlog's commit and take the blockers alone, leased from an earlier time
    await flushUntil(clockA, () => worker.stats().completed >= 10 && claiming === 0);
    expect(worker.stats().completed).toBe(10);
    await clockA.advance(100);

    // the backlog: two blockers first in claim order, then 30 rows of which every other one has ONE attempt
    const backlog = [
      requestOf(1_000, start - 50_000, 3),
      requestOf(1_001, start - 50_000 + 1, 3),
      ...Array.from({ length: 30 }, (_, i) =>
        requestOf(1_002 + i, start - 40_000 + i, i % 2 === 0 ? 1 : 3),
      ),
    ];
    await driverA.enqueueMany(backlog);
    worker.signalEnqueued(QUEUE);
    // every claim the backlog prompted has answered, so what the worker holds is placed before it is listed
    await flushUntil(clockA, () => worker.stats().claimed >= 12 && claiming === 0);
    const claimedAt = clockA.now();

    const running = (await driverA.introspect.list({ state: 'running', limit: 100 })).filter(
      (row) => (row.input as { n: number }).n >= 1_000,
    );
    const blockers = running.filter((row) => (row.input as { n: number }).n < 1_002);
    const held = running.filter((row) => (row.input as { n: number }).n >= 1_002);
    expect(blockers).toHaveLength(2);
    expect(worker.stats().inFlight).toBe(2);
    // it claimed ahead (of the next 20 rows, the 10 with attempts left) and held none on its final attempt
    expect(held).toHaveLength(10);
    expect(held.every((row) => row.maxAttempts === 3 && row.attempt === 1)).toBe(true);
    expect(held.every((row) => row.leaseExpiresAt === claimedAt + VT)).toBe(true);

    // The worker dies here: its clock never moves again, so it never renews, releases or settles anything.
    const clockB = frozenClock(claimedAt + VT - 1);
    const driverB = postgresJobDriver({ executor: db.executor, clock: clockB });
    const buried: JobRow[] = [];
    const claimB = async (): Promise<readonly ClaimedJob[]> => {
      const { claimed, rescued } = await claimAndRescue(driverB, {
        workerId: 'survivor',
        slots: [{ queue: QUEUE, limit: 100 }],
        visibilityTimeoutMs: VT,
      });
      buried.push(...rescued.buried);
      return claimed;
    };
    const heldIds = new Set([...held, ...blockers].map((row) => row.id));

    // a millisecond before the timeout: another worker gets the rows never claimed, none of the dead worker's
    const early = await claimB();
    expect(early.filter((row) => heldIds.has(row.id))).toEqual([]);
    expect(early).toHaveLength(20);
    expect(early.every((row) => row.attempt === 1)).toBe(true);
    // exactly at the timeout: every row it held (and both runs it died with) is claimable again, one attempt spent
    await clockB.advance(1);
    const lapsed = await claimB();
    expect(new Set(lapsed.map((row) => row.id))).toEqual(heldIds);
    expect(lapsed.every((row) => row.attempt === 2 && row.attempt < row.maxAttempts)).toBe(true);
    expect(buried).toEqual([]);
    const dead = await driverB.introspect.list({ state: 'dead', limit: 100 });
    expect(dead).toEqual([]);

    // (the test's own clean-up: the old runs' settles are fenced off, the rows stay the survivor's)
    for (const resolve of release) resolve();
    await worker.stop();
    const survivors = await driverB.introspect.list({ state: 'running', limit: 100 });
    expect(survivors.every((row) => row.workerId === 'survivor')).toBe(true);
    expect(survivors).toHaveLength(32);
  });
});
