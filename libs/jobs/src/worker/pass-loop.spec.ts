import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { JobRegistry } from '../registry/job-registry';
import { frozenClock } from '../testing/frozen-clock';
import { silentLogger } from '../util/logger';
import { ClaimPlanner } from './claim-planner';
import { DueTimers } from './due-timers';
import { HandBacks } from './hand-backs';
import { OwedQueues } from './owed-queues';
import { CLAIMS_ON_THE_WIRE, PassLoop } from './pass-loop';
import { prefetchBuffer } from './prefetch';
import { RescueCadence } from './rescue-cadence';
import { SlotLedger } from './slot-ledger';
import { emptyWorkerStats } from './worker-stats';

/** The memory driver behind a gate: each claim stays on the wire until `answer()`; `sent()` counts them. */
function gatedClaims(inner: ReturnType<typeof memoryJobDriver>) {
  const waiting: (() => void)[] = [];
  let sent = 0;
  const onTheWire = async (): Promise<void> => {
    sent++;
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const driver: JobDriver = {
    ...inner,
    claim: async (o) => {
      await onTheWire();
      return inner.claim(o);
    },
    claimRescuing: async (o, r) => {
      await onTheWire();
      return inner.claimRescuing(o, r);
    },
  };
  return {
    driver,
    sent: () => sent,
    answer: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/**
 * A pass loop over ten busy slots of queue `q` (every claim it sends is for the prefetch buffer), on a gated memory
 * driver ({@link gatedClaims}). `completed(n)` ends n runs, raising the measured rate and so the buffer's target.
 */
function busyLoop() {
  const clock = frozenClock();
  const { driver, sent, answer } = gatedClaims(memoryJobDriver({ clock }));
  const ledger = new SlotLedger(undefined);
  ledger.serve(new Map([['q', 10]]));
  for (let i = 0; i < 10; i++) ledger.take({ queue: 'q', tenantId: null });
  const held = prefetchBuffer(10_000);
  const owed = new OwedQueues();
  const planner = new ClaimPlanner({
    workerId: 'w',
    visibilityTimeoutMs: 30_000,
    ledger,
    served: new Map([['q', ['q.job']]]),
    held,
    rescues: new RescueCadence(),
    claimAhead: true,
    dropExhausted: () => new Set(),
    owed,
  });
  const loop: PassLoop = new PassLoop({
    workerId: 'w',
    driver,
    registry: new JobRegistry(),
    clock,
    logger: silentLogger,
    metrics: undefined,
    stats: emptyWorkerStats(),
    handBacks: new HandBacks(driver, silentLogger),
    held,
    // never started: it arms no timer, so every pass here is one the test asked for
    timers: new DueTimers({
      clock,
      floorMs: 250,
      ceilingMs: () => 2_000,
      holdMaxMs: 5_000,
      holding: () => held.size() > 0,
      pass: () => loop.kick(),
    }),
    owed,
    heard: () => false,
    planner: () => planner,
    running: () => true,
    place: (rows) => held.hold(rows, clock.now()),
  });
  return {
    clock,
    loop,
    sent,
    completed: (n: number) => {
      for (let i = 0; i < n; i++) held.completed('q');
    },
    answer: async () => {
      answer();
      await clock.flush();
    },
  };
}

describe('PassLoop', () => {
  it(`keeps at most ${CLAIMS_ON_THE_WIRE} claims on the wire, a wake's pass one, and runs ONE pass after them`, async () => {
    const b = busyLoop();
    b.loop.kick(); // the rate's window opens: nothing to ask for yet
    b.completed(10);
    await b.clock.advance(100);
    b.loop.kick();
    expect(b.sent()).toBe(1);

    // the rate rose: the buffer is short again while the first claim is out
    b.completed(100);
    await b.clock.advance(100);
    b.loop.woken();
    expect(b.sent()).toBe(1);
    b.loop.kick();
    expect(b.sent()).toBe(2);

    b.completed(10_000);
    await b.clock.advance(100);
    b.loop.kick();
    b.loop.kick();
    expect(b.sent()).toBe(2);
    // the claims come back: the passes asked for meanwhile run as ONE
    await b.answer();
    expect(b.sent()).toBe(3);
    await b.answer();
    expect(b.sent()).toBe(3);
  });
});
