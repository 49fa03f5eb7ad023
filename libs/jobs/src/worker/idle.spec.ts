import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import type { ClaimOptions, JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness, type RunJobsOptions } from '../testing/run-jobs';
import {
  IDLE_POLL_CEILING_MS,
  POLL_INTERVAL_MS,
  WOKEN_IDLE_POLL_CEILING_MS,
} from './worker-options';

const MINUTE = 60_000;
const input = t.object({ n: t.number });

const idle = job({
  name: 'idle.noop',
  input,
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => 'ok',
});
const other = job({
  name: 'idle.other-queue',
  queue: 'reports',
  input,
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => 'ok',
});

describe('idle cost and pickup latency', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A harness whose driver records when each claim was issued and what it asked for. */
  async function start(
    options: Omit<RunJobsOptions, 'clock' | 'driver'>,
  ): Promise<{ h: JobsHarness; claims: { at: number; options: ClaimOptions }[] }> {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    const claims: { at: number; options: ClaimOptions }[] = [];
    const driver: JobDriver = {
      ...inner,
      claimRescuing: (o, r) => {
        claims.push({ at: clock.now(), options: o });
        return inner.claimRescuing(o, r);
      },
      claim: (o) => {
        claims.push({ at: clock.now(), options: o });
        return inner.claim(o);
      },
    };
    h = await runJobs({ ...options, clock, driver });
    return { h, claims };
  }

  /** Claims issued in (from, from + ms]. */
  const within = (claims: { at: number }[], from: number, ms: number): number =>
    claims.filter((c) => c.at > from && c.at <= from + ms).length;

  it('costs 30 claims per idle minute without a wake (ceiling 2 s)', async () => {
    const { h, claims } = await start({ jobs: [idle] });
    await h.advance(10_000);
    const from = claims.at(-1)?.at ?? 0;
    await h.advance(2 * MINUTE);

    expect(IDLE_POLL_CEILING_MS).toBe(2_000);
    expect(within(claims, from, MINUTE)).toBe(30);
    expect(within(claims, from + MINUTE, MINUTE)).toBe(30);
  });

  it('costs 12 claims per idle minute while a proven wake is live (ceiling 5 s)', async () => {
    const { h, claims } = await start({ jobs: [idle] });
    h.worker.setWakeLive(true);
    await h.advance(20_000);
    const from = claims.at(-1)?.at ?? 0;
    await h.advance(2 * MINUTE);

    expect(WOKEN_IDLE_POLL_CEILING_MS).toBe(5_000);
    expect(within(claims, from, MINUTE)).toBe(12);
  });

  it('an idle pass is ONE claim over every served queue', async () => {
    const { h, claims } = await start({ jobs: [idle, other] });
    await h.advance(10_000);
    const from = claims.at(-1)?.at ?? 0;
    await h.advance(MINUTE);

    expect(within(claims, from, MINUTE)).toBe(30);
    expect(
      claims
        .at(-1)
        ?.options.slots.map((s) => s.queue)
        .sort(),
    ).toEqual(['default', 'reports']);
  });

  it('a declared idlePollMaxMs is the ceiling either way', async () => {
    const { h, claims } = await start({ jobs: [idle], idlePollMaxMs: 10_000 });
    h.worker.setWakeLive(true);
    await h.advance(40_000);
    const from = claims.at(-1)?.at ?? 0;
    await h.advance(MINUTE);

    expect(within(claims, from, MINUTE)).toBe(6);
  });

  it('an in-process enqueue starts at once, then the loop passes at the floor and backs off again', async () => {
    const { h, claims } = await start({ jobs: [idle] });
    await h.advance(MINUTE);
    const enqueuedAt = h.clock.now();
    const before = claims.length;
    const { id } = await idle.enqueue({ n: 1 });
    await h.settle();

    expect(h.clock.now()).toBe(enqueuedAt);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', updatedAt: enqueuedAt });
    await h.advance(10_000);
    const after = claims.slice(before).map((c) => c.at - enqueuedAt);
    // the wake's pass claims it and the freed slot kicks one more, both at once; then the floor, doubling to the ceiling
    expect(after.slice(0, 7)).toEqual([
      0,
      0,
      POLL_INTERVAL_MS,
      POLL_INTERVAL_MS + 500,
      POLL_INTERVAL_MS + 1_500,
      POLL_INTERVAL_MS + 3_500,
      POLL_INTERVAL_MS + 3_500 + IDLE_POLL_CEILING_MS,
    ]);
  });

  it('a throttled wake passes at once and sweeps once sweepAfterMs after the latest wake, not at the floor', async () => {
    const { h, claims } = await start({ jobs: [idle], idlePollMaxMs: 60_000 });
    h.worker.setWakeLive(true);
    await h.advance(MINUTE);
    // another process commits a row and announces it; a sibling of its slot commits 3 ms later, unannounced
    const first = await prepareEnqueue(idle, { n: 1 }, {}, undefined, h.clock.now());
    await h.driver.enqueue(first);
    const wokenAt = h.clock.now();
    const before = claims.length;
    h.worker.signalEnqueued('default', 15);
    await h.settle();
    expect((await h.driver.get(first.id))?.state).toBe('done');
    await h.advance(3);
    const second = await prepareEnqueue(idle, { n: 2 }, {}, undefined, h.clock.now());
    await h.driver.enqueue(second);
    await h.advance(11);
    expect((await h.driver.get(second.id))?.state).toBe('ready');
    await h.advance(1);
    expect(await h.driver.get(second.id)).toMatchObject({ state: 'done', updatedAt: wokenAt + 15 });
    await h.advance(POLL_INTERVAL_MS);
    // the wake's pass and the freed slot's at once, the sweep (and its freed slot) at +15, then the floor again
    expect(claims.slice(before, before + 5).map((c) => c.at - wokenAt)).toEqual([
      0,
      0,
      15,
      15,
      15 + POLL_INTERVAL_MS,
    ]);
  });

  it('a wake arriving while the sweep is armed pushes it out: one sweep after the latest wake', async () => {
    const { h, claims } = await start({ jobs: [idle], idlePollMaxMs: 60_000 });
    h.worker.setWakeLive(true);
    await h.advance(MINUTE);
    const wokenAt = h.clock.now();
    const before = claims.length;
    h.worker.signalEnqueued('default', 15);
    await h.advance(10);
    h.worker.signalEnqueued('default', 15);
    await h.advance(100);
    // a pass per wake, and one sweep 15 ms after the second
    expect(claims.slice(before).map((c) => c.at - wokenAt)).toEqual([0, 10, 25]);
  });

  it('a sweep alone claims nothing at once and passes once sweepAfterMs later; an unserved queue is ignored', async () => {
    const { h, claims } = await start({ jobs: [idle], idlePollMaxMs: 60_000 });
    h.worker.setWakeLive(true);
    await h.advance(MINUTE);
    const sweptAt = h.clock.now();
    const before = claims.length;
    h.worker.signalSweep('default', 15);
    h.worker.signalSweep('reports', 5);
    await h.settle();
    expect(claims.length).toBe(before);
    // a row of the announced slot commits 3 ms later, unannounced: the sweep starts it
    await h.advance(3);
    const late = await prepareEnqueue(idle, { n: 1 }, {}, undefined, h.clock.now());
    await h.driver.enqueue(late);
    await h.advance(11);
    expect(claims.length).toBe(before);
    expect((await h.driver.get(late.id))?.state).toBe('ready');
    await h.advance(1);
    expect(await h.driver.get(late.id)).toMatchObject({ state: 'done', updatedAt: sweptAt + 15 });
    await h.advance(POLL_INTERVAL_MS);
    // the sweep and its freed slot's pass at +15, then the floor: nothing for the unserved queue's 5 ms
    expect(claims.slice(before).map((c) => c.at - sweptAt)).toEqual([
      15,
      15,
      15 + POLL_INTERVAL_MS,
    ]);
  });

  it('sweeps alone 10 ms apart each get their pass 15 ms after them, none pushed out by the next', async () => {
    const { h, claims } = await start({ jobs: [idle], idlePollMaxMs: 60_000 });
    h.worker.setWakeLive(true);
    await h.advance(MINUTE);
    const from = h.clock.now();
    const before = claims.length;
    for (let i = 0; i < 4; i++) {
      h.worker.signalSweep('default', 15);
      await h.advance(10);
    }
    await h.advance(20);
    expect(claims.slice(before).map((c) => c.at - from)).toEqual([15, 25, 35, 45]);
  });

  it('a wake while a claim is on the wire asks for ONE pass right after it, not a second claim beside it', async () => {
    const { h } = await start({ jobs: [idle], idlePollMaxMs: 60_000 });
    await h.advance(MINUTE);
    const held: (() => void)[] = [];
    const inner = h.driver.claim.bind(h.driver);
    const rescuing = h.driver.claimRescuing!.bind(h.driver);
    h.driver.claim = async (o) => {
      await new Promise<void>((resolve) => held.push(resolve));
      return inner(o);
    };
    h.driver.claimRescuing = async (o, r) => {
      await new Promise<void>((resolve) => held.push(resolve));
      return rescuing(o, r);
    };
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    h.worker.signalEnqueued('default');
    h.worker.signalEnqueued('default');
    h.worker.signalEnqueued('default');
    await turn();
    expect(held).toHaveLength(1);
    held.shift()?.();
    await turn();
    expect(held).toHaveLength(1);
    held.shift()?.();
    await turn();
    expect(held).toHaveLength(0);
  });

  it('ignores a wake for a queue the worker does not serve', async () => {
    const { h, claims } = await start({ jobs: [idle] });
    await h.advance(10_000);
    const before = claims.length;
    h.worker.signalEnqueued('reports');
    await h.settle();
    expect(claims.length).toBe(before);

    h.worker.signalEnqueued('default');
    await h.settle();
    expect(claims.length).toBe(before + 1);
  });

  it('a row handed back due in 10 s starts at +10 s, not at the next idle poll', async () => {
    const attempts: number[] = [];
    const handle = job({
      name: 'idle.retry-on-time',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 2, backoff: 'fixed', delay: 10_000, jitter: false },
      run: ({ attempt }) => {
        attempts.push(h?.clock.now() ?? -1);
        if (attempt === 1) throw new Error('again');
      },
    });
    const { h } = await start({ jobs: [handle], idlePollMaxMs: 30_000 });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    const failedAt = h.clock.now();

    await h.advance(9_999);
    expect(attempts).toHaveLength(1);
    await h.advance(1);
    expect(attempts).toEqual([failedAt, failedAt + 10_000]);
    expect((await h.driver.get(id))?.state).toBe('done');
  });

  it('every row handed back within the horizon gets its own wake, not only the earliest', async () => {
    const started: Record<number, number[]> = {};
    const handle = job({
      name: 'idle.two-retries',
      input: t.object({ n: t.number, delayMs: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 2, backoff: 'fixed', delay: 10_000, jitter: false },
      async run({ input: i, attempt, step }) {
        (started[i.n] ??= []).push(h?.clock.now() ?? -1);
        if (attempt === 1 && i.delayMs === 0) throw new Error('retry in 10 s');
        if (i.delayMs > 0) await step.sleep('pause', i.delayMs);
      },
    });
    const { h } = await start({ jobs: [handle], idlePollMaxMs: 60_000 });
    const t0 = h.clock.now();
    await handle.enqueue({ n: 1, delayMs: 0 });
    await handle.enqueue({ n: 2, delayMs: 25_000 });
    await handle.enqueue({ n: 3, delayMs: 40_000 });
    await h.settle();
    await h.advance(45_000);

    expect(started).toEqual({
      1: [t0, t0 + 10_000],
      2: [t0, t0 + 25_000],
      3: [t0, t0 + 40_000],
    });
  });

  it('a delayed job another process queued starts within the idle ceiling past its runAt', async () => {
    const { h } = await start({ jobs: [idle] });
    await h.advance(10_000);
    const request = await prepareEnqueue(idle, { n: 9 }, { delay: '5s' }, undefined, h.clock.now());
    await h.driver.enqueue(request);
    await h.advance(5_000 - 1);
    expect((await h.driver.get(request.id))?.state).toBe('delayed');
    await h.advance(1 + IDLE_POLL_CEILING_MS);
    expect((await h.driver.get(request.id))?.state).toBe('done');
  });
});
