import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import { t } from '../schema';
import type { RunJobsOptions } from '../testing/run-jobs';
import { claimRecordingHarness } from '../../test/claim-recorder';
import { harnessSlot } from '../../test/harness-slot';
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
  const slot = harnessSlot();
  /** A harness whose driver records when each claim was issued and what it asked for. */
  const start = (options: Omit<RunJobsOptions, 'clock' | 'driver'>) =>
    claimRecordingHarness(slot, options);

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
