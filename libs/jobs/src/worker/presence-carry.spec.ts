import { memoryJobDriver } from '../driver/memory';
import type { WorkerBeat, WorkerRegistry } from '../driver/workers';
import { errorCodeOf } from '../errors/jobs-error';
import { uuidv7 } from '../util/ids';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { recordingLogger } from '../util/logger';
import { WorkerPresence } from './worker-presence';
import { enqueueRequest } from '../../test/requests';

const VT = 30_000;
const INTERVAL = VT / 3;

/** A registry recording each standalone beat's time; `carries` says whether its driver's claims carry beats. */
function registry(
  clock: FrozenClock,
  carries: boolean,
): WorkerRegistry & { alone: number[]; refuse: boolean } {
  const r = {
    alone: [] as number[],
    refuse: false,
    claimCarriesBeat: carries,
    beat(_beat: WorkerBeat, visibilityTimeoutMs: number): Promise<void> {
      expect(visibilityTimeoutMs).toBe(VT);
      r.alone.push(clock.now());
      return r.refuse ? Promise.reject(new Error('registry down')) : Promise.resolve();
    },
    leave: () => Promise.resolve(),
  };
  return r;
}

function presence(
  clock: FrozenClock,
  reg: WorkerRegistry,
  inFlight: string[] = [],
): WorkerPresence {
  return new WorkerPresence({
    registry: reg,
    clock,
    logger: recordingLogger(),
    workerId: 'w1',
    slots: () => new Map([['default', 4]]),
    inFlight: () => inFlight,
    intervalMs: INTERVAL,
    visibilityTimeoutMs: VT,
  });
}

/** An idle worker's claims: one every `everyMs` for `ms`, each carrying the beat `p` offers, answered at once. */
async function claimEvery(
  clock: FrozenClock,
  p: WorkerPresence,
  everyMs: number,
  ms: number,
  landed = true,
): Promise<number[]> {
  const carriedAt: number[] = [];
  for (let t = 0; t < ms; t += everyMs) {
    await clock.advance(everyMs);
    const beat = p.carry(clock.now());
    if (beat === undefined) continue;
    expect(beat).toMatchObject({
      visibilityTimeoutMs: VT,
      beat: { id: 'w1', slots: { default: 4 } },
    });
    carriedAt.push(clock.now());
    p.carried(clock.now(), landed);
  }
  return carriedAt;
}

describe('the registry beat carried by claims', () => {
  it('an idle worker claiming every 5 s carries every beat: no standalone write after the first', async () => {
    const clock = frozenClock();
    const reg = registry(clock, true);
    const p = presence(clock, reg);
    const started = clock.now();
    p.start();
    await clock.advance(0);
    expect(reg.alone).toEqual([started]);

    const carried = await claimEvery(clock, p, 5_000, 60_000);
    // due one interval after the last renewal: every second claim carries it
    expect(carried.map((at) => at - started)).toEqual([
      10_000, 20_000, 30_000, 40_000, 50_000, 60_000,
    ]);
    expect(reg.alone).toEqual([started]);
    await p.stop();
  });

  it('a worker that sends no claim beats alone, half an interval after the beat fell due', async () => {
    const clock = frozenClock();
    const reg = registry(clock, true);
    const p = presence(clock, reg);
    const started = clock.now();
    p.start();
    await clock.advance(60_000);
    const grace = INTERVAL / 2;
    expect(reg.alone.map((at) => at - started)).toEqual(
      [0, 1, 2, 3, 4].map((n) => n * (INTERVAL + grace)),
    );
    // every renewal lands well inside the row's visibility timeout
    expect(INTERVAL + grace).toBeLessThan(VT);
    await p.stop();
  });

  it('the grace never lets the row lapse: with an interval of half the timeout it is a quarter of it', async () => {
    const clock = frozenClock();
    const reg = registry(clock, true);
    const p = new WorkerPresence({
      registry: reg,
      clock,
      logger: recordingLogger(),
      workerId: 'w1',
      slots: () => new Map(),
      inFlight: () => [],
      intervalMs: VT / 2,
      visibilityTimeoutMs: VT,
    });
    p.start();
    await clock.advance(VT);
    expect(reg.alone.map((at) => at - reg.alone[0]!)).toEqual([0, (3 * VT) / 4]);
    await p.stop();
  });

  it('a claim that threw carried nothing: the standalone beat still comes, then claims carry again', async () => {
    const clock = frozenClock();
    const reg = registry(clock, true);
    const p = presence(clock, reg);
    const started = clock.now();
    p.start();
    const failed = await claimEvery(clock, p, 5_000, 15_000, false);
    // offered at 10 s, not landed; at 15 s the standalone beat (due + grace) went out first, so nothing was due
    expect(failed.map((at) => at - started)).toEqual([10_000]);
    expect(reg.alone.map((at) => at - started)).toEqual([0, INTERVAL + INTERVAL / 2]);
    // and the claims carry again one interval after it
    const carried = await claimEvery(clock, p, 5_000, 15_000);
    expect(carried.map((at) => at - started)).toEqual([25_000]);
    await p.stop();
  });

  it('offers one beat at a time: a second claim on the wire carries none', async () => {
    const clock = frozenClock();
    const reg = registry(clock, true);
    const p = presence(clock, reg);
    p.start();
    await clock.advance(INTERVAL);
    expect(p.carry(clock.now())).toBeDefined();
    expect(p.carry(clock.now())).toBeUndefined();
    p.carried(clock.now(), true);
    expect(p.carry(clock.now())).toBeUndefined();
    await p.stop();
  });

  it('carries nothing for a registry whose claims cannot, nor before start or after stop', async () => {
    const clock = frozenClock();
    const plain = registry(clock, false);
    const p = presence(clock, plain);
    p.start();
    await clock.advance(VT);
    expect(p.carry(clock.now())).toBeUndefined();
    // one interval apart, as before claims could carry
    expect(plain.alone.map((at) => at - plain.alone[0]!)).toEqual([
      0,
      INTERVAL,
      2 * INTERVAL,
      3 * INTERVAL,
    ]);
    await p.stop();

    const carrying = registry(clock, true);
    const q = presence(clock, carrying);
    expect(q.carry(clock.now() + VT)).toBeUndefined();
    q.start();
    await q.stop();
    await clock.advance(VT);
    expect(q.carry(clock.now())).toBeUndefined();
  });

  it('carries the runs held when the claim is sent', async () => {
    const clock = frozenClock();
    const held = ['a'];
    const p = presence(clock, registry(clock, true), held);
    p.start();
    await clock.advance(INTERVAL);
    held.push('b');
    expect(p.carry(clock.now())?.beat.inFlight).toEqual(['a', 'b']);
    await p.stop();
  });

  it('the memory driver: a claim carrying the beat upserts the row; the beat of another worker is refused', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const beat = {
      id: 'w1',
      host: 'h',
      pid: 7,
      startedAt: clock.now(),
      slots: { default: 2 },
      inFlight: [],
    };
    const slots = [{ queue: 'default', limit: 2 }];
    expect(driver.workerRegistry?.claimCarriesBeat).toBe(true);
    await driver.claim({ workerId: 'w1', slots, visibilityTimeoutMs: VT });
    expect(await driver.introspect?.workers()).toEqual([]);
    await driver.claim({
      workerId: 'w1',
      slots,
      visibilityTimeoutMs: VT,
      presence: { beat, visibilityTimeoutMs: VT },
    });
    expect(await driver.introspect?.workers()).toEqual([
      { ...beat, queues: ['default'], heartbeatAt: clock.now(), expiresAt: clock.now() + VT },
    ]);
    const id = uuidv7(clock.now());
    await driver.enqueue(
      enqueueRequest({
        id,
        runId: uuidv7(clock.now()),
        name: 'carry.job',
        queue: 'default',
        input: {},
        idempotencyKey: 'k',
        runAt: clock.now(),
      }),
    );
    const error: unknown = await driver
      .claim({
        workerId: 'w2',
        slots,
        visibilityTimeoutMs: VT,
        presence: { beat, visibilityTimeoutMs: VT },
      })
      .catch((e: unknown) => e);
    expect(errorCodeOf(error)).toBe('X_INVARIANT');
    // refused before anything was claimed
    expect((await driver.get(id))?.state).toBe('ready');
  });
});
