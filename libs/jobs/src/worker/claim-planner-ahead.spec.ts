import type { ClaimedJob } from '../driver/job-row';
import { ClaimPlanner } from './claim-planner';
import { OwedQueues } from './owed-queues';
import { prefetchBuffer } from './prefetch';
import { RescueCadence } from './rescue-cadence';
import { SlotLedger } from './slot-ledger';

const T0 = Date.UTC(2026, 0, 1);

/** Only the fields the planner reads of an answered row. */
const row = (queue: string, id: string): ClaimedJob => ({ id, queue }) as unknown as ClaimedJob;

/**
 * A claim-ahead planner over `slots`, each queue served by `<queue>.job` unless `served` names otherwise; `busy` of
 * each queue's slots are taken and `completed` runs of each ended before its first look.
 */
function planner(o: {
  slots: Record<string, number>;
  busy?: Record<string, number>;
  completed?: number;
  served?: Map<string, readonly string[]>;
}) {
  const ledger = new SlotLedger(undefined);
  ledger.serve(new Map(Object.entries(o.slots)));
  for (const [queue, n] of Object.entries(o.busy ?? {}))
    for (let i = 0; i < n; i++) ledger.take({ queue, tenantId: null });
  const held = prefetchBuffer(10_000);
  for (const queue of Object.keys(o.slots))
    for (let i = 0; i < (o.completed ?? 0); i++) held.completed(queue);
  const owed = new OwedQueues();
  const p = new ClaimPlanner({
    workerId: 'w1',
    visibilityTimeoutMs: 30_000,
    ledger,
    served: o.served ?? new Map([...ledger.queues()].map((q) => [q, [`${q}.job`]])),
    held,
    rescues: new RescueCadence(),
    claimAhead: true,
    dropExhausted: () => new Set(),
    owed,
  });
  return { planner: p, ledger, held, owed };
}

describe('ClaimPlanner, claiming ahead', () => {
  it('asks at most 100 rows ahead a slot of the queue', () => {
    // 1,000 runs in 100 ms would set a target of 2,000 rows
    const { planner: p } = planner({ slots: { a: 2 }, busy: { a: 2 }, completed: 1_000 });
    expect(p.plan(T0)).toBeUndefined();
    expect(p.plan(T0 + 100)?.options.slots).toEqual([
      { queue: 'a', limit: 0, ahead: 200, names: ['a.job'] },
    ]);
  });

  it('asks the target ahead on top of the free slots, whatever more slots are taken than the queue has', () => {
    // 3 runs in 100 ms: a target of 6 rows ahead
    const { planner: free, held } = planner({ slots: { a: 3 }, busy: { a: 1 }, completed: 3 });
    const first = free.plan(T0)!;
    expect(first.options.slots).toEqual([{ queue: 'a', limit: 2, names: ['a.job'] }]);
    free.returned(first);
    // two free slots, one held row covering one of them: a claim for the other and the 6 ahead
    held.hold([row('a', 'h1')], T0 + 100);
    expect(free.plan(T0 + 100)?.options.slots).toEqual([
      { queue: 'a', limit: 1, ahead: 6, names: ['a.job'] },
    ]);
    // two rows run on the queue's one slot (a ledger takes what it is told to): no slot is free, 6 ahead
    const { planner: over } = planner({ slots: { a: 1 }, busy: { a: 2 }, completed: 3 });
    expect(over.plan(T0)).toBeUndefined();
    expect(over.plan(T0 + 100)?.options.slots).toEqual([
      { queue: 'a', limit: 0, ahead: 6, names: ['a.job'] },
    ]);
  });

  it('tells the early rate by the queue’s slots, busy or not: ten runs ending together on ten slots are no rate', () => {
    const { planner: p, held } = planner({ slots: { a: 10 }, busy: { a: 10 }, completed: 10 });
    expect(p.plan(T0)).toBeUndefined();
    expect(p.plan(T0 + 15)).toBeUndefined();
    // 30 runs in 15 ms are three turnovers of each slot: 2 a ms, 400 rows ahead before the window ends
    for (let i = 0; i < 20; i++) held.completed('a');
    expect(p.plan(T0 + 15)?.options.slots).toEqual([
      { queue: 'a', limit: 0, ahead: 400, names: ['a.job'] },
    ]);
  });

  it('a claim that got fewer rows than its free slots and its rows ahead owes the queue nothing; all of them, a claim', () => {
    for (const got of [5, 6]) {
      const { planner: p, owed } = planner({ slots: { a: 1 }, busy: { a: 1 }, completed: 3 });
      expect(p.plan(T0)).toBeUndefined();
      const claim = p.plan(T0 + 100)!;
      expect(claim.options.slots).toMatchObject([{ queue: 'a', limit: 0, ahead: 6 }]);
      expect(owed.any()).toBe(false);
      p.answered(
        claim,
        Array.from({ length: got }, (_, i) => row('a', `${i}`)),
      );
      p.returned(claim);
      expect(owed.any()).toBe(got === 6);
    }
  });

  it("counts a queue's own rows only in what its claim got", () => {
    const { planner: p, owed } = planner({ slots: { a: 1, b: 1 } });
    const claim = p.plan(T0)!;
    expect(claim.options.slots.map((s) => s.queue)).toEqual(['a', 'b']);
    // b got its one row, a none: only b is owed a claim
    p.answered(claim, [row('b', 'b1')]);
    p.returned(claim);
    expect(owed.any()).toBe(true);
    owed.sent(['b'], []);
    expect(owed.any()).toBe(false);
  });

  it('never owes a claim to a served queue no registered job names', () => {
    const { planner: p, owed } = planner({
      slots: { a: 1, b: 1 },
      served: new Map([
        ['a', ['a.job']],
        ['b', []],
      ]),
    });
    expect(p.plan(T0)?.options.slots.map((s) => s.queue)).toEqual(['a']);
    expect(owed.any()).toBe(false);
  });

  it('counts as asked of a queue nothing before a claim asks it, its rows while it is out, none once back', () => {
    const { planner: p } = planner({ slots: { a: 2, b: 1 }, busy: { b: 1 } });
    expect([p.asking('a'), p.asking('b')]).toEqual([0, 0]);
    const claim = p.plan(T0)!;
    expect([p.asking('a'), p.asking('b')]).toEqual([2, 0]);
    p.returned(claim);
    expect([p.asking('a'), p.asking('b')]).toEqual([0, 0]);
  });
});
