import { jobCapLeaseKey } from '../declare/concurrency';
import type { AnyJobHandle } from '../declare/handle';
import { job } from '../declare/job';
import { claimAndRescue, type JobDriver } from '../driver/job-driver';
import type { ClaimedJob } from '../driver/job-row';
import type { LeaseStore } from '../driver/lease-store';
import { memoryJobDriver } from '../driver/memory';
import { memoryEventBus } from '../events/memory-event-bus';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { gate } from '../testing/test-kit';
import { recordingLogger, type RecordingLogger } from '../util/logger';
import { enqueueRequest } from '../../test/requests';
import { executeJob, type ExecuteJobOptions } from './execute-job';
import type { JobExecution } from './outcome';
import { memoryJobMetrics, type MemoryJobMetrics } from './metrics';

const input = t.object({ n: t.number });
/** The lease the rows are claimed with (the claim's own, not the attempt's settings). */
const CLAIM_LEASE_MS = 30_000;

/** A memory driver on a frozen clock, and one attempt at a time run through `executeJob` with no timings named. */
interface Rig {
  readonly clock: FrozenClock;
  readonly driver: JobDriver;
  readonly leases: LeaseStore;
  readonly logger: RecordingLogger;
  readonly metrics: MemoryJobMetrics;
  /** Enqueues one row of `handle` and claims it as `workerId`. */
  claim(handle: AnyJobHandle, workerId?: string): Promise<ClaimedJob>;
  /** Runs the claimed attempt of `handle` (its inline body) with the defaults of `executeJob`. */
  run(
    handle: AnyJobHandle,
    claimed: ClaimedJob,
    extra?: Partial<ExecuteJobOptions>,
  ): Promise<JobExecution>;
}

function rig(wrap: (inner: JobDriver) => JobDriver = (inner) => inner): Rig {
  const clock = frozenClock();
  const driver = wrap(memoryJobDriver({ clock }));
  const leases = driver.leases;
  if (leases === undefined) throw new Error('the memory driver keeps leases');
  const logger = recordingLogger();
  const metrics = memoryJobMetrics();
  const registry = new JobRegistry();
  const claimAs = async (handle: AnyJobHandle, workerId: string): Promise<ClaimedJob> => {
    const slots = [{ queue: handle.queue, limit: 1 }];
    const [claimed] = await driver.claim({ workerId, slots, visibilityTimeoutMs: CLAIM_LEASE_MS });
    if (claimed === undefined) throw new Error(`nothing to claim for ${handle.name}`);
    return claimed;
  };
  return {
    clock,
    driver,
    leases,
    logger,
    metrics,
    async claim(handle, workerId = 'w1') {
      const request = { name: handle.name, queue: handle.queue, input: { n: 1 } };
      await driver.enqueue(enqueueRequest({ ...request, runAt: clock.now() }));
      return claimAs(handle, workerId);
    },
    run(handle, claimed, extra = {}) {
      if (registry.get(handle.name) === undefined) registry.register(handle);
      const events = memoryEventBus({ clock });
      const job = registry.get(handle.name);
      return executeJob({ driver, clock, logger, metrics, events, job, claimed, ...extra });
    },
  };
}

/** The memory driver with some calls of its lease store replaced (each given the real store). */
function withLeases(
  patch: (leases: LeaseStore) => Partial<LeaseStore>,
): (inner: JobDriver) => JobDriver {
  return (inner) => {
    const leases = inner.leases;
    if (leases === undefined) throw new Error('the memory driver keeps leases');
    return { ...inner, leases: { ...leases, ...patch(leases) } };
  };
}

describe('executeJob on its own: the defaults a caller that names no timings gets', () => {
  it('a capped run holds its fleet slot for 30 s, renewed every 10 s, and gives it back at the end', async () => {
    const working = gate();
    const capped = job({
      name: 'execute-job.slot-defaults',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: 1,
      run: () => working.promise,
    });
    const r = rig();
    const started = r.clock.now();
    const running = r.run(capped, await r.claim(capped));
    const expiries = async (): Promise<number[]> =>
      (await r.leases.holders(jobCapLeaseKey(capped.name))).map((h) => h.expiresAt);
    await r.clock.advance(0);
    expect(await expiries()).toEqual([started + 30_000]);

    await r.clock.advance(9_999);
    expect(await expiries()).toEqual([started + 30_000]);
    await r.clock.advance(1);
    expect(await expiries()).toEqual([started + 40_000]);

    working.open();
    expect((await running).outcome).toBe('completed');
    expect(await expiries()).toEqual([]);
  });

  it('a capped run answers only once its slot is given back: a stopped worker leaves no slot held', async () => {
    const released = gate();
    // a release on the wire (a database round trip) until the test lets it land
    const r = rig(
      withLeases((leases) => ({
        release: (key, holder) => released.promise.then(() => leases.release(key, holder)),
      })),
    );
    const capped = job({
      name: 'execute-job.slot-released',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: 1,
      run: () => 'done',
    });
    let answered = false;
    const running = r.run(capped, await r.claim(capped)).finally(() => (answered = true));
    await r.clock.advance(0);
    expect(answered).toBe(false);

    released.open();
    expect((await running).outcome).toBe('completed');
    expect(await r.leases.holders(jobCapLeaseKey(capped.name))).toEqual([]);
  });

  it('a renewal still on the wire when the run ends reports no lost slot', async () => {
    const renewing = gate();
    // answered only once the run gave its slot back: by then the slot is nobody's
    const r = rig(
      withLeases((leases) => ({
        renew: (key, holder, ttlMs) =>
          renewing.promise.then(() => leases.renew(key, holder, ttlMs)),
      })),
    );
    const working = gate();
    const capped = job({
      name: 'execute-job.renew-in-flight',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: 1,
      run: () => working.promise,
    });
    const running = r.run(capped, await r.claim(capped));
    await r.clock.advance(10_000);
    working.open();
    expect((await running).outcome).toBe('completed');

    renewing.open();
    await r.clock.advance(0);
    expect(r.logger.named('jobs.worker.slot-lost')).toEqual([]);
  });

  it('a capped run whose slot another run holds is handed back due one poll (250 ms) later, uncounted', async () => {
    const r = rig();
    const ran: number[] = [];
    const taken = job({
      name: 'execute-job.hand-back',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: 1,
      run: ({ input: i }) => void ran.push(i.n),
    });
    expect(await r.leases.acquire(jobCapLeaseKey(taken.name), 'another-run', 1, 60_000)).toBe(true);
    const claimed = await r.claim(taken);

    const execution = await r.run(taken, claimed);
    expect(execution).toMatchObject({ outcome: 'deferred', resumeAt: r.clock.now() + 250 });
    expect(await r.driver.get(claimed.id)).toMatchObject({
      attempt: 0,
      runAt: r.clock.now() + 250,
    });
    expect(ran).toEqual([]);
  });

  it('an ack the driver throws on is sent again for 30 s from the first failure, then the error is thrown', async () => {
    const blip = new Error('Connection terminated unexpectedly');
    const r = rig((inner) => ({ ...inner, ack: () => Promise.reject(blip) }));
    const quick = job({
      name: 'execute-job.resend-window',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => 'done',
    });
    let answer: unknown = 'pending';
    void r.run(quick, await r.claim(quick)).then(
      () => (answer = 'answered'),
      (error: unknown) => (answer = error),
    );
    // re-sent at 100, 300, 700, 1,500, 3,100 ms, then every 2 s: the last at 29,100 ms
    await r.clock.advance(29_099);
    expect(answer).toBe('pending');
    await r.clock.advance(1);
    expect(answer).toBe(blip);
    expect(r.logger.named('jobs.settle.retrying')).toHaveLength(18);
  });
});

describe('executeJob: a settle fenced out by a newer claim ends lost', () => {
  /** Claims a row as w1, lets its lease lapse, and claims it again as w2: w1's claim is the stale one. */
  async function staleClaim(r: Rig, handle: AnyJobHandle): Promise<ClaimedJob> {
    const stale = await r.claim(handle, 'w1');
    await r.clock.advance(CLAIM_LEASE_MS);
    const slots = [{ queue: handle.queue, limit: 1 }];
    const { claimed } = await claimAndRescue(r.driver, {
      workerId: 'w2',
      slots,
      visibilityTimeoutMs: CLAIM_LEASE_MS,
    });
    const [fresh] = claimed;
    expect(fresh).toMatchObject({ id: stale.id, attempt: 2 });
    return stale;
  }

  it.each([
    { label: 'the ack of a body that returned', fails: false },
    { label: 'the dead-letter nack of a terminal failure', fails: true },
  ])('$label: not counted, not logged failed, onSettled not told', async ({ fails }) => {
    const told: string[] = [];
    const handle = job({
      name: `execute-job.fenced.${fails ? 'nack' : 'ack'}`,
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => {
        if (fails) throw Object.assign(new Error('refused'), { code: 'X_VALUE_INVALID' });
        return 'done';
      },
      onSettled: (s) => void told.push(s.outcome),
    });
    const r = rig();
    const stale = await staleClaim(r, handle);
    const landed: boolean[] = [];

    const execution = await r.run(handle, stale, { onSettle: (l) => landed.push(l) });
    expect(execution.outcome).toBe('lost');
    expect(landed).toEqual([false]);
    expect(told).toEqual([]);
    expect([...r.metrics.totals.values()]).toEqual([]);
    expect(r.logger.named('jobs.attempt.failed')).toEqual([]);
    expect(r.logger.named('jobs.settle.unowned')).toHaveLength(1);
    expect(await r.driver.get(stale.id)).toMatchObject({
      state: 'running',
      workerId: 'w2',
      attempt: 2,
    });
  });
});
