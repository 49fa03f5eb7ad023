import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { LEASE_LAPSED_FINAL_ATTEMPT } from './claim-exhausted';
import { gate, untilAborted, busyFor } from '../testing/test-kit';

const input = t.object({ n: t.number });
const VISIBILITY = 3_000;

describe('the lease heartbeat', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A harness whose driver's heartbeat the test can replace. */
  async function start(
    jobs: Parameters<typeof runJobs>[0]['jobs'],
    heartbeat?: (inner: JobDriver) => JobDriver['heartbeat'],
    extra: { concurrency?: number } = {},
  ): Promise<JobsHarness> {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    const driver: JobDriver =
      heartbeat === undefined ? inner : { ...inner, heartbeat: heartbeat(inner) };
    h = await runJobs({ jobs, clock, driver, visibilityTimeoutMs: VISIBILITY, ...extra });
    return h;
  }

  /** A job whose body waits for its signal to abort, recording each reason it aborted with; `attempts` when given. */
  function abortRecording(name: string, attempts?: number) {
    const reasons: unknown[] = [];
    const handle = job({
      name,
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      ...(attempts === undefined ? {} : { retry: { attempts } }),
      async run({ ctx }) {
        try {
          await untilAborted(ctx.signal);
        } catch (error) {
          reasons.push(error);
          throw error;
        }
      },
    });
    return { handle, reasons };
  }

  it('renews the lease: a run longer than the visibility timeout is not re-delivered and completes once', async () => {
    let calls = 0;
    const ref: { clock?: FrozenClock } = {};
    const handle = job({
      name: 'heartbeat.long-run',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run() {
        calls++;
        if (ref.clock !== undefined) await busyFor(ref.clock, 10 * VISIBILITY);
        return 'done';
      },
    });
    const h = await start([handle]);
    ref.clock = h.clock;
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    const claimedUntil = (await h.driver.get(id))?.leaseExpiresAt ?? 0;

    await h.advance(5 * VISIBILITY);
    const row = await h.driver.get(id);
    expect(row?.state).toBe('running');
    expect(row?.leaseExpiresAt).toBeGreaterThan(claimedUntil + 3 * VISIBILITY);

    await h.advance(5 * VISIBILITY);
    expect(calls).toBe(1);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(h.worker.stats()).toMatchObject({ claimed: 1, completed: 1, leasesLost: 0 });
    expect(h.logger.named('jobs.heartbeat.failed')).toHaveLength(0);
    expect(h.logger.named('jobs.lease.lost')).toHaveLength(0);
  });

  it('the first renewal is due one interval after the attempt started: the beat made once the body ran is not late', async () => {
    const renewedAt: number[] = [];
    const startedAt: number[] = [];
    const release = gate();
    const ref: { clock?: FrozenClock } = {};
    const handle = job({
      name: 'heartbeat.first-due',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run() {
        startedAt.push(ref.clock?.now() ?? Number.NaN);
        await release.promise;
      },
    });
    const h = await start([handle], (inner) => (id, claim, ms) => {
      renewedAt.push(ref.clock?.now() ?? Number.NaN);
      return inner.heartbeat(id, claim, ms);
    });
    ref.clock = h.clock;
    await handle.enqueue({ n: 1 });
    await h.settle();
    expect(startedAt).toHaveLength(1);
    const interval = Math.floor(VISIBILITY / 3);
    await h.advance(interval - 1);
    expect(renewedAt).toEqual([]);
    await h.advance(1);
    expect(renewedAt).toEqual([(startedAt[0] ?? 0) + interval]);
    release.open();
    await h.settle();
    expect(h.worker.stats()).toMatchObject({ completed: 1, leasesLost: 0 });
  });

  it('a cancelled running job loses its lease at the next heartbeat: the signal aborts and the row stays cancelled', async () => {
    const { handle, reasons } = abortRecording('heartbeat.cancelled');
    const h = await start([handle]);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    await h.driver.introspect?.cancel(id, 'operator stopped a runaway pass');
    expect(reasons).toEqual([]);
    await h.advance(VISIBILITY / 3);

    expect(reasons.map(errorCodeOf)).toEqual(['X_JOB_LEASE_LOST']);
    const lost = h.logger.named('jobs.lease.lost');
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ level: 'error', fields: { jobId: id, queue: 'default' } });
    expect(h.metrics.leasesLost.get('default')).toBe(1);
    expect(h.worker.stats()).toMatchObject({ leasesLost: 1, inFlight: 0, retried: 0 });
    expect(await h.driver.get(id)).toMatchObject({ state: 'cancelled', workerId: null });
    expect([...h.metrics.totals.values()]).toEqual([]);

    await h.advance(60_000);
    expect((await h.driver.get(id))?.state).toBe('cancelled');
  });

  it('a heartbeat that rejects is a warning while the window has room, then a lost lease', async () => {
    const { handle, reasons } = abortRecording('heartbeat.rejects', 1);
    const h = await start([handle], () => () => Promise.reject(new Error('connection reset')), {
      concurrency: 1,
    });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    await h.advance(VISIBILITY - 1);
    const failed = h.logger.named('jobs.heartbeat.failed');
    expect(failed).toHaveLength(2);
    expect(failed.every((e) => e.level === 'warn')).toBe(true);
    expect(h.logger.named('jobs.lease.lost')).toHaveLength(0);
    expect(reasons).toEqual([]);

    await h.advance(1);
    expect(h.logger.named('jobs.lease.lost')).toHaveLength(1);
    expect(h.metrics.leasesLost.get('default')).toBe(1);
    expect(reasons.map(errorCodeOf)).toEqual(['X_JOB_LEASE_LOST']);
    // the lease lapsed on the final attempt: the next claim buries it
    await h.settle();
    expect(await h.driver.get(id)).toMatchObject({
      state: 'dead',
      lastError: LEASE_LAPSED_FINAL_ATTEMPT,
    });
  });

  it('a heartbeat that hangs is caught like one that rejects: a window with none landing', async () => {
    const { handle, reasons } = abortRecording('heartbeat.hangs', 1);
    let sent = 0;
    const h = await start(
      [handle],
      () => () => {
        sent++;
        return new Promise<boolean>(() => undefined);
      },
      { concurrency: 1 },
    );
    await handle.enqueue({ n: 1 });
    await h.settle();

    await h.advance(VISIBILITY - 1);
    // two intervals passed: the renewal on the wire is not piled on by a second one
    expect(sent).toBe(1);
    expect(h.logger.named('jobs.lease.lost')).toHaveLength(0);
    await h.advance(1);
    expect(h.logger.named('jobs.lease.lost')).toHaveLength(1);
    expect(h.logger.named('jobs.heartbeat.failed')).toHaveLength(0);
    expect(reasons.map(errorCodeOf)).toEqual(['X_JOB_LEASE_LOST']);
  });

  it('a job that finished never reports the renewal that was on the wire', async () => {
    const onWire: { settle: (landed: boolean) => void; fail: (e: Error) => void }[] = [];
    const working = gate();
    const handle = job({
      name: 'heartbeat.finished',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => working.promise,
    });
    // every renewal stays on the wire until the test answers it, so the ack overtakes it
    const h = await start(
      [handle],
      () => () =>
        new Promise<boolean>((resolve, reject) => {
          onWire.push({ settle: resolve, fail: reject });
        }),
    );
    const { id } = await handle.enqueue({ n: 1 });
    await handle.enqueue({ n: 2 });
    await h.settle();
    await h.advance(VISIBILITY / 3);
    expect(onWire).toHaveLength(2);

    working.open();
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('done');
    onWire[0]?.settle(false); // the fenced renewal of a row the ack moved out of running
    onWire[1]?.fail(new Error('pool closed'));
    await h.advance(2 * VISIBILITY);

    expect(h.logger.named('jobs.lease.lost')).toHaveLength(0);
    expect(h.logger.named('jobs.heartbeat.failed')).toHaveLength(0);
    expect(h.metrics.leasesLost.size).toBe(0);
    expect(h.worker.stats()).toMatchObject({ completed: 2, leasesLost: 0 });
  });

  it('an onSettled slower than the heartbeat interval does not make a finished job report a lost lease', async () => {
    const ref: { clock?: FrozenClock } = {};
    const hooks: { outcome: string; aborted: boolean }[] = [];
    const handle = job({
      name: 'heartbeat.slow-hook',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => 'done',
      async onSettled(s) {
        if (ref.clock !== undefined) await busyFor(ref.clock, 2 * VISIBILITY);
        hooks.push({ outcome: s.outcome, aborted: s.ctx.signal.aborted });
      },
    });
    const h = await start([handle]);
    ref.clock = h.clock;
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('done');

    await h.advance(2 * VISIBILITY);
    expect(hooks).toEqual([{ outcome: 'completed', aborted: false }]);
    expect(h.logger.named('jobs.lease.lost')).toHaveLength(0);
    expect(h.metrics.leasesLost.size).toBe(0);
    expect(h.worker.stats()).toMatchObject({ completed: 1, leasesLost: 0, inFlight: 0 });
  });
});
