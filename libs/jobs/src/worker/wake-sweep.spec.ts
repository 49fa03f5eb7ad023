import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import { t } from '../schema';
import type { RunJobsOptions } from '../testing/run-jobs';
import { claimRecordingHarness } from '../../test/claim-recorder';
import { harnessSlot } from '../../test/harness-slot';
import { POLL_INTERVAL_MS } from './worker-options';

const MINUTE = 60_000;

const idle = job({
  name: 'sweep.noop',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => 'ok',
});

/**
 * What a wake and a sweep make the worker claim, on a frozen clock: a wake passes at once (one pass after a claim on
 * the wire), a throttled wake sweeps once after the latest wake, and a sweep alone — a handed row's announcement —
 * passes only then, each sweep alone with its own pass.
 */
describe('wakes and sweeps', () => {
  const slot = harnessSlot();
  /** A harness whose driver records when each claim was issued and what it asked for. */
  const start = (options: Omit<RunJobsOptions, 'clock' | 'driver'>) =>
    claimRecordingHarness(slot, options);

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
    // the wake's pass at once, the sweep at +15, then the floor again: each claim asked for 10 rows and found one, so
    // the runs that ended owed no queue a claim
    expect(claims.slice(before, before + 3).map((c) => c.at - wokenAt)).toEqual([
      0,
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
    // the sweep's pass at +15 (the run it started owed no claim), then the floor: nothing for the unserved queue's 5 ms
    expect(claims.slice(before).map((c) => c.at - sweptAt)).toEqual([15, 15 + POLL_INTERVAL_MS]);
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
});
