import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { RESCUE_INTERVAL_MS, RescueCadence } from './rescue-cadence';

const VT = 30_000;
const input = t.object({ n: t.number });

const quick = job({
  name: 'rescue.quick',
  input,
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => 'ok',
});

interface Claim {
  readonly at: number;
  readonly rescue: boolean;
  readonly ids: readonly string[];
}

describe('RescueCadence', () => {
  it('rescues first, then at most every interval', () => {
    const cadence = new RescueCadence(1_000);
    expect(cadence.due(0)).toBe(true);
    expect(cadence.due(10)).toBe(false);
    expect(cadence.due(999)).toBe(false);
    expect(cadence.due(1_000)).toBe(true);
    expect(cadence.due(1_499)).toBe(false);
    expect(cadence.due(2_000)).toBe(true);
  });

  it('rescues on the next claim after a rescuing claim failed', () => {
    const cadence = new RescueCadence(1_000);
    expect(cadence.due(0)).toBe(true);
    cadence.failed(0);
    expect(cadence.due(10)).toBe(true);
  });
});

describe('a busy worker rescues lapsed leases on its cadence', () => {
  let h: JobsHarness | undefined;
  let release: (() => void) | undefined;
  afterEach(async () => {
    release?.();
    await h?.close();
    h = undefined;
  });

  it(`re-takes a dead worker's row within RESCUE_INTERVAL_MS of its lapse; claims between rescues skip them`, async () => {
    const blocker = job({
      name: 'rescue.blocker',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    });
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    const claims: Claim[] = [];
    const driver: JobDriver = {
      ...inner,
      claim: async (o) => {
        const at = clock.now();
        const rows = await inner.claim(o);
        claims.push({ at, rescue: false, ids: rows.map((row) => row.id) });
        return rows;
      },
      claimRescuing: async (o, r) => {
        const at = clock.now();
        const pass = await inner.claimRescuing(o, r);
        claims.push({ at, rescue: true, ids: pass.claimed.map((row) => row.id) });
        return pass;
      },
    };
    // a row a worker that died holds: leased 30 s from 50 ms past the start
    const dead = await prepareEnqueue(quick, { n: 0 }, {}, undefined, clock.now());
    await inner.enqueue(dead);
    await clock.advance(50);
    const [held] = await inner.claim({
      workerId: 'dead-worker',
      slots: [{ queue: dead.queue, limit: 1 }],
      visibilityTimeoutMs: VT,
    });
    expect(held?.id).toBe(dead.id);
    const lapsesAt = held!.leaseExpiresAt!;
    // the worker starts half an interval later: its rescues fall between its claims' ticks and the lapse
    await clock.advance(RESCUE_INTERVAL_MS / 2);

    h = await runJobs({
      jobs: [quick, blocker],
      clock,
      driver,
      concurrency: 4,
      visibilityTimeoutMs: VT,
    });
    // one run in flight the whole test: the worker is never idle
    await blocker.enqueue({ n: 0 });
    await h.settle();
    const busySince = claims.length;
    // a stream of quick runs keeps the worker claiming every 100 ms
    for (let n = 1; clock.now() < lapsesAt + 2 * RESCUE_INTERVAL_MS; n++) {
      await quick.enqueue({ n });
      await h.advance(100);
    }

    const retaken = claims.find((c) => c.ids.includes(dead.id));
    expect(retaken?.rescue).toBe(true);
    expect(retaken!.at).toBeGreaterThanOrEqual(lapsesAt);
    expect(retaken!.at).toBeLessThanOrEqual(lapsesAt + RESCUE_INTERVAL_MS);
    // claims after the lapse and before the re-take did not rescue: they left the row alone
    const skipped = claims.filter((c) => c.at >= lapsesAt && c.at < retaken!.at);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((c) => c.rescue === false)).toBe(true);
    // the first claim rescues; busy, the rescuing claims are RESCUE_INTERVAL_MS apart and most claims skip it
    expect(claims[0]?.rescue).toBe(true);
    const busy = claims.slice(busySince);
    const rescuing = busy.filter((c) => c.rescue !== false).map((c) => c.at);
    expect(rescuing.length).toBeGreaterThan(20);
    for (let i = 1; i < rescuing.length; i++)
      expect(rescuing[i]! - rescuing[i - 1]!).toBeGreaterThanOrEqual(RESCUE_INTERVAL_MS);
    expect(busy.filter((c) => c.rescue === false).length).toBeGreaterThan(rescuing.length * 3);
    expect(await h.driver.get(dead.id)).toMatchObject({ state: 'done', attempt: 2 });
  });

  it('rescues on its cadence while idle too: woken claims between rescues skip it, polls at the ceiling rescue', async () => {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    const claims: { at: number; rescue: boolean }[] = [];
    const driver: JobDriver = {
      ...inner,
      claim: (o) => {
        claims.push({ at: clock.now(), rescue: false });
        return inner.claim(o);
      },
      claimRescuing: (o, r) => {
        claims.push({ at: clock.now(), rescue: true });
        return inner.claimRescuing(o, r);
      },
    };
    h = await runJobs({ jobs: [quick], clock, driver });
    // a trickle 100 ms apart, each run done before the next enqueue wakes the worker: every claim is an idle one
    for (let n = 0; n < 30; n++) {
      await quick.enqueue({ n });
      await h.advance(100);
    }
    expect(h.worker.stats().completed).toBe(30);
    const rescuing = claims.filter((c) => c.rescue).map((c) => c.at);
    expect(claims[0]?.rescue).toBe(true);
    for (let i = 1; i < rescuing.length; i++)
      expect(rescuing[i]! - rescuing[i - 1]!).toBeGreaterThanOrEqual(RESCUE_INTERVAL_MS);
    // ~3 s of wakes: about a rescue a second, the other claims plain
    expect(rescuing.length).toBeGreaterThanOrEqual(3);
    expect(claims.filter((c) => !c.rescue).length).toBeGreaterThan(rescuing.length * 3);
    // then quiet: the polls double towards the idle ceiling, and once they are an interval apart each rescues
    const quietFrom = claims.length;
    await h.advance(20_000);
    const quiet = claims.slice(quietFrom);
    expect(quiet.length).toBeGreaterThan(2);
    expect(quiet.slice(-2).map((c) => c.rescue)).toEqual([true, true]);
  });
});
