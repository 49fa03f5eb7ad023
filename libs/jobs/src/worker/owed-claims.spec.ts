import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import { t } from '../schema';
import { claimRecordingHarness } from '../../test/claim-recorder';
import { harnessSlot } from '../../test/harness-slot';
import type { WakeHandOff } from '../driver/backend';
import { POLL_INTERVAL_MS, WOKEN_IDLE_POLL_CEILING_MS, type JobWorker } from './worker-options';

const input = t.object({ n: t.number });
const noop = job({
  name: 'owed.noop',
  input,
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => 'ok',
});

/** Input 1 of `owed.gated` holds its slot until this is called. */
let releaseGated: () => void = () => undefined;
const gated = job({
  name: 'owed.gated',
  input,
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: ({ input: i }) =>
    i.n === 1 ? new Promise<void>((resolve) => (releaseGated = resolve)) : undefined,
});

describe('a run that ends claims again only for a queue owed a claim', () => {
  const slot = harnessSlot();

  it('with a proven wake, sends no claim when the claim that took its row found the queue empty', async () => {
    const { h, claims } = await claimRecordingHarness(slot, { jobs: [noop] });
    h.worker.setWakeLive(true);
    await h.advance(60_000);
    const at = h.clock.now();
    const before = claims.length;
    const { id } = await noop.enqueue({ n: 1 });
    await h.settle();

    expect(await h.driver.get(id)).toMatchObject({ state: 'done', updatedAt: at });
    // the wake's pass took it, asking for 10; its end sent nothing; the next claim is the poll at the floor
    expect(claims.slice(before).map((c) => c.at - at)).toEqual([0]);
    await h.advance(POLL_INTERVAL_MS);
    expect(claims.slice(before).map((c) => c.at - at)).toEqual([0, POLL_INTERVAL_MS]);
  });

  it('without a proven wake, claims again as each run ends', async () => {
    const { h, claims } = await claimRecordingHarness(slot, { jobs: [noop] });
    await h.advance(60_000);
    const at = h.clock.now();
    const before = claims.length;
    await noop.enqueue({ n: 1 });
    await h.settle();

    expect(claims.slice(before).map((c) => c.at - at)).toEqual([0, 0]);
  });

  it('claims again when the claim came back with all it asked for, until one finds the queue short', async () => {
    const { h, claims } = await claimRecordingHarness(slot, {
      jobs: [noop],
      concurrency: 1,
      claimAhead: false,
    });
    h.worker.setWakeLive(true);
    await h.advance(60_000);
    const at = h.clock.now();
    // three rows another process queued: no in-process signal; the wake below stands for them
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const request = await prepareEnqueue(noop, { n }, {}, undefined, at);
      await h.driver.enqueue(request);
      ids.push(request.id);
    }
    const before = claims.length;
    h.worker.signalEnqueued('default');
    await h.settle();

    for (const id of ids) expect(await h.driver.get(id)).toMatchObject({ state: 'done' });
    // each claim took the one row it asked for, so each run's end claimed again; the fourth found none
    expect(claims.slice(before).map((c) => [c.at - at, c.options.slots[0]?.limit])).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
  });

  /**
   * A worker at concurrency 1 with a proven wake, owed nothing (its last claim found the queue short), whose one slot
   * then holds a handed row that runs until `release()`; `queued()` adds a row as another process would, unannounced.
   */
  async function fullOfAHandedRow() {
    const { h, claims } = await claimRecordingHarness(slot, {
      jobs: [gated],
      concurrency: 1,
      claimAhead: false,
    });
    const worker = h.worker as JobWorker & { readonly handOff: WakeHandOff };
    worker.setWakeLive(true);
    await h.advance(60_000);
    const queued = async (n: number): Promise<string> => {
      const request = await prepareEnqueue(gated, { n }, {}, undefined, h.clock.now());
      await h.driver.enqueue(request);
      return request.id;
    };
    const first = await queued(1);
    const [row] = await h.driver.claim({
      workerId: worker.id,
      visibilityTimeoutMs: 30_000,
      slots: [{ queue: 'default', limit: 1 }],
    });
    expect(row?.id).toBe(first);
    worker.handOff.takeClaimed([row!]);
    await h.settle();
    return { h, claims, worker, queued, release: () => releaseGated() };
  }

  it('a wake heard while every slot is busy owes its queue a claim: the run that ends sends it', async () => {
    const { h, claims, worker, queued, release } = await fullOfAHandedRow();
    const id = await queued(2);
    const before = claims.length;
    worker.signalEnqueued('default'); // no slot free: nothing claimed now
    await h.settle();
    expect(claims).toHaveLength(before);

    release();
    await h.settle();
    expect(await h.driver.get(id)).toMatchObject({ state: 'done' });
    // the claim that took it got all it asked for: its run's end claimed once more, and found the queue empty
    expect(claims).toHaveLength(before + 2);
  });

  it('a row no wake announced waits for the poll, as it would for an idle worker: late, never lost', async () => {
    const { h, claims, queued, release } = await fullOfAHandedRow();
    const id = await queued(2);
    const before = claims.length;
    release();
    await h.settle();
    expect(claims).toHaveLength(before);
    expect(await h.driver.get(id)).toMatchObject({ state: 'ready' });

    await h.advance(WOKEN_IDLE_POLL_CEILING_MS);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done' });
  });
});
