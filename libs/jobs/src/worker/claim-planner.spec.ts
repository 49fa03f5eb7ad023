import type { ClaimedJob } from '../driver/job-row';
import { frozenClock } from '../testing/frozen-clock';
import { ClaimPlanner, type ClaimPlannerOptions } from './claim-planner';
import { processLimits } from './limits';
import { OwedQueues } from './owed-queues';
import { PREFETCH_PER_SLOT, prefetchBuffer, type PrefetchBuffer } from './prefetch';
import { RescueCadence } from './rescue-cadence';
import { SlotLedger } from './slot-ledger';

const T0 = Date.UTC(2026, 0, 1);

/** Only the fields the buffer reads. */
const heldRow = (queue: string, id: string): ClaimedJob => ({ id, queue }) as unknown as ClaimedJob;

function planner(over: Partial<ClaimPlannerOptions> & { slots?: Record<string, number> } = {}): {
  planner: ClaimPlanner;
  ledger: SlotLedger;
  held: PrefetchBuffer;
} {
  const ledger = over.ledger ?? new SlotLedger(undefined);
  ledger.serve(new Map(Object.entries(over.slots ?? { a: 2, b: 1 })));
  const held = over.held ?? prefetchBuffer(10_000);
  const served = new Map([...ledger.queues()].map((q) => [q, [`${q}.job`]]));
  const options: ClaimPlannerOptions = {
    workerId: 'w1',
    visibilityTimeoutMs: 30_000,
    served,
    rescues: new RescueCadence(),
    claimAhead: true,
    dropExhausted: () => new Set(['a.job']),
    owed: new OwedQueues(),
    ...over,
    ledger,
    held,
  };
  return { planner: new ClaimPlanner(options), ledger, held };
}

describe('ClaimPlanner', () => {
  it('asks every served queue for its free slots, with its names, and a rescue', () => {
    const { planner: p } = planner();
    const claim = p.plan(T0);
    expect(claim?.options).toMatchObject({
      workerId: 'w1',
      visibilityTimeoutMs: 30_000,
      slots: [
        { queue: 'a', limit: 2, names: ['a.job'] },
        { queue: 'b', limit: 1, names: ['b.job'] },
      ],
    });
    expect(claim?.rescue).toEqual({ dropExhausted: new Set(['a.job']) });
    expect(claim?.options.excludeTenants).toBeUndefined();
    expect(p.claiming).toBe(1);
  });

  it('skips a queue no registered job names, and plans nothing while every slot is busy', () => {
    const ledger = new SlotLedger(undefined);
    const { planner: p } = planner({
      ledger,
      served: new Map([
        ['a', ['a.job']],
        ['b', []],
      ]),
    });
    expect(p.plan(T0)?.options.slots.map((s) => s.queue)).toEqual(['a']);
    const { planner: full, ledger: busy } = planner({ slots: { a: 1 } });
    busy.take({ queue: 'a', tenantId: null });
    expect(full.plan(T0)).toBeUndefined();
    expect(full.claiming).toBe(0);
  });

  it('counts rows a claim on the wire asked for as held, until it returns', () => {
    const { planner: p } = planner({ claimAhead: false });
    const first = p.plan(T0);
    // the first claim covers every free slot: a second one has nothing to ask for
    expect(p.plan(T0)).toBeUndefined();
    p.returned(first!);
    expect(p.claiming).toBe(0);
    expect(p.plan(T0)?.options.slots).toHaveLength(2);
  });

  it('held rows cover free slots', () => {
    const { planner: p, held } = planner({ slots: { a: 2 }, claimAhead: false });
    held.hold([heldRow('a', '1')], T0);
    expect(p.plan(T0)?.options.slots).toMatchObject([{ queue: 'a', limit: 1 }]);
  });

  it('asks ahead by the measured rate, at most PREFETCH_PER_SLOT a slot, and not with claimAhead off', () => {
    for (const claimAhead of [true, false]) {
      const { planner: p, ledger, held } = planner({ slots: { a: 2 }, claimAhead });
      ledger.take({ queue: 'a', tenantId: null });
      ledger.take({ queue: 'a', tenantId: null });
      for (let i = 0; i < 1_000; i++) held.completed('a');
      // the rate's window opens at the first look and closes 100 ms later
      expect(p.plan(T0)).toBeUndefined();
      const claim = p.plan(T0 + 100);
      if (claimAhead)
        expect(claim?.options.slots).toMatchObject([
          { queue: 'a', limit: 0, ahead: 2 * PREFETCH_PER_SLOT },
        ]);
      else expect(claim).toBeUndefined();
    }
  });

  it('a slot that frees while a claim is out waits for that claim to return', () => {
    const { planner: p, ledger } = planner({ slots: { a: 2 }, claimAhead: false });
    const run = { queue: 'a', tenantId: null };
    ledger.take(run);
    const first = p.plan(T0)!;
    expect(first.options.slots).toMatchObject([{ queue: 'a', limit: 1 }]);
    // the run ends while the claim is on the wire: no second claim races it for the freed slot
    ledger.give(run);
    expect(p.plan(T0 + 1)).toBeUndefined();
    p.returned(first);
    expect(p.plan(T0 + 2)?.options.slots).toMatchObject([{ queue: 'a', limit: 2 }]);
  });

  /** A planner over one busy slot of `a` whose measured rate sets a prefetch target of 6 rows from T0 + 100. */
  function busyAtTarget6() {
    const made = planner({ slots: { a: 1 } });
    made.ledger.take({ queue: 'a', tenantId: null });
    for (let i = 0; i < 3; i++) made.held.completed('a');
    // the rate's window opens at the first look: 3 runs in 100 ms, 0.03 a ms over the 200 ms horizon
    expect(made.planner.plan(T0)).toBeUndefined();
    return made;
  }

  it('tops the buffer up once a third of its target is missing, not before', () => {
    const { planner: p, held } = busyAtTarget6();
    held.hold(
      [1, 2, 3, 4, 5].map((n) => heldRow('a', `${n}`)),
      T0,
    );
    // 5 of 6 held: one short is less than a third
    expect(p.plan(T0 + 100)).toBeUndefined();
    held.next('a', T0 + 100, []);
    // 4 of 6 held: two short is a third
    expect(p.plan(T0 + 100)?.options.slots).toEqual([
      { queue: 'a', limit: 0, ahead: 2, names: ['a.job'] },
    ]);
  });

  it('counts the rows a claim on the wire asked ahead for: no second claim asks for them again', () => {
    const { planner: p } = busyAtTarget6();
    const first = p.plan(T0 + 100)!;
    expect(first.options.slots).toMatchObject([{ queue: 'a', limit: 0, ahead: 6 }]);
    expect(p.plan(T0 + 101)).toBeUndefined();
    p.returned(first);
    expect(p.plan(T0 + 102)?.options.slots).toMatchObject([{ queue: 'a', ahead: 6 }]);
  });

  it('a rescuing claim that fails after a later one rescued does not make the next claim rescue', () => {
    const rescues = new RescueCadence(1_000);
    expect(rescues.due(T0)).toBe(true);
    expect(rescues.due(T0 + 1_000)).toBe(true);
    // the claim sent at T0 fails only now: the one sent at T0 + 1000 still rescued within the interval
    rescues.failed(T0);
    expect(rescues.due(T0 + 1_001)).toBe(false);
    rescues.failed(T0 + 1_000);
    expect(rescues.due(T0 + 1_002)).toBe(true);
  });

  it('rescues on the first claim and after a rescuing claim failed, not on every busy claim', () => {
    const { planner: p } = planner({ claimAhead: false });
    const first = p.plan(T0)!;
    expect(first.rescue).toBeDefined();
    p.returned(first);
    const second = p.plan(T0 + 10)!;
    expect(second.rescue).toBeUndefined();
    p.returned(second);
    p.failed(second);
    const third = p.plan(T0 + 20)!;
    expect(third.rescue).toBeUndefined();
    p.returned(third);
    // the rescuing claim failed: the next claim rescues
    p.failed(first);
    expect(p.plan(T0 + 30)?.rescue).toBeDefined();
  });

  it('skips the tenants at a per-tenant cap, and keeps the rows a claim buried', async () => {
    const ledger = new SlotLedger(processLimits({ perTenant: 1 }, frozenClock(T0)));
    const { planner: p } = planner({ ledger, slots: { a: 3 } });
    ledger.take({ queue: 'a', tenantId: 't1' });
    const claim = p.plan(T0)!;
    expect(claim.options.excludeTenants).toEqual(['t1']);
    // the driver's rescuing claim buried a row: the planned claim keeps it from the rescue's result
    const unused = (): never => {
      throw new Error('a rescuing claim goes through claimRescuing');
    };
    await claim.send({
      claim: unused,
      rescue: unused,
      claimRescuing: () =>
        Promise.resolve({ claimed: [], rescued: { buried: [heldRow('a', 'x')] } }),
    });
    expect(claim.exhausted.map((r) => r.id)).toEqual(['x']);
    p.returned(claim);
    expect(p.plan(T0 + 1)?.options.slots).toEqual([{ queue: 'a', limit: 2, names: ['a.job'] }]);
  });

  it("attaches the presence's due beat to the claim, and tells it whether the claim landed", () => {
    const offered = {
      beat: { id: 'w1', host: 'h', pid: 1, startedAt: T0, slots: {}, inFlight: [] },
      visibilityTimeoutMs: 30_000,
    };
    const told: [number, boolean][] = [];
    let due = true;
    const presence = {
      carry: (now: number) => (due && now >= T0 ? offered : undefined),
      carried: (sentAt: number, landed: boolean) => {
        told.push([sentAt, landed]);
      },
    };
    const { planner: p } = planner({ presence });
    const first = p.plan(T0);
    expect(first?.options.presence).toBe(offered);
    p.returned(first!);
    due = false;
    const second = p.plan(T0 + 5);
    expect(second?.options).not.toHaveProperty('presence');
    p.returned(second!);
    due = true;
    const third = p.plan(T0 + 10);
    p.failed(third!);
    p.returned(third!);
    expect(told).toEqual([
      [T0, true],
      [T0 + 10, false],
    ]);
  });

  describe('what it owes the queues (OwedQueues)', () => {
    const answered = (queue: string, n: number): ClaimedJob[] =>
      Array.from({ length: n }, (_, i) => heldRow(queue, `${queue}${i}`));

    it('a claim sent owes its queues nothing; one that got all it asked a queue owes that queue again', () => {
      const owed = new OwedQueues();
      const { planner: p } = planner({ owed, claimAhead: false });
      const claim = p.plan(T0)!;
      expect(owed.any()).toBe(false);
      p.answered(claim, [...answered('a', 1), ...answered('b', 1)]);
      // asked a for 2 and got 1: short; asked b for 1 and got 1: more may wait
      p.returned(claim);
      expect(owed.any()).toBe(true);
      p.plan(T0)!;
      expect(owed.any()).toBe(false);
    });

    it('a claim that skipped tenants at their cap, or threw, owes its queues again', () => {
      const limits = processLimits({ perTenant: 1 }, frozenClock(T0));
      const owed = new OwedQueues();
      const { planner: p, ledger } = planner({
        owed,
        claimAhead: false,
        ledger: new SlotLedger(limits),
      });
      expect(ledger.take({ queue: 'a', tenantId: 'acme' })).toBe('ok');
      const skipping = p.plan(T0)!;
      expect(skipping.options.excludeTenants).toEqual(['acme']);
      p.answered(skipping, []);
      p.returned(skipping);
      expect(owed.any()).toBe(true);

      const other = new OwedQueues();
      const { planner: q } = planner({ owed: other, claimAhead: false });
      const failing = q.plan(T0)!;
      expect(other.any()).toBe(false);
      q.failed(failing);
      q.returned(failing);
      expect(other.any()).toBe(true);
    });
  });
});
