import type { ClaimedJob } from '../driver/job-row';
import type { ClaimPlanner } from './claim-planner';
import type { HandBacks } from './hand-backs';
import type { PrefetchBuffer } from './prefetch';
import type { SlotLedger } from './slot-ledger';
import { workerHandOff } from './worker-hand-off';

const row = (queue: string, id: string): ClaimedJob => ({ id, queue }) as unknown as ClaimedJob;

/**
 * A hand-off side over a queue `q` with `free` free slots and `held` rows held ahead of them (the rest of the worker
 * stubbed: no caps, no claim on the wire): what it offers, what it places and what it hands back.
 */
function sideWith(free: number, held: number) {
  const placed: string[] = [];
  const back: string[] = [];
  const side = workerHandOff({
    workerId: 'w1',
    visibilityTimeoutMs: 30_000,
    ledger: { free: (queue: string) => (queue === 'q' ? free : 0) } as unknown as SlotLedger,
    held: { held: (queue: string) => (queue === 'q' ? held : 0) } as unknown as PrefetchBuffer,
    limits: undefined,
    handBacks: {
      release: (rows: readonly ClaimedJob[]) => back.push(...rows.map((r) => r.id)),
    } as unknown as HandBacks,
    served: () => new Map([['q', ['n']]]),
    planner: () => ({ claiming: 0, asking: () => 0 }) as unknown as ClaimPlanner,
    running: () => true,
    place: (rows) => placed.push(...rows.map((r) => r.id)),
  });
  return { handOff: side.handOff, placed, back };
}

/**
 * The rows a worker holds ahead of its free slots (claimed ahead, waiting for a slot) cover those slots: a hand-off
 * neither offers them nor fills them, so a handed row never waits behind a held one in the worker. A worker starts
 * its held rows as soon as a slot frees, so a real one holds none while a slot is free; the side keeps the rule for
 * any moment it is asked in between.
 */
describe("a worker's hand-off side counts the rows it holds against its free slots", () => {
  it('offers the free slots less the rows held for them, and none once they cover every slot', () => {
    expect(sideWith(3, 2).handOff.offers()).toEqual([{ queue: 'q', free: 1, names: ['n'] }]);
    expect(sideWith(3, 3).handOff.offers()).toEqual([]);
    expect(sideWith(3, 0).handOff.offers()).toEqual([{ queue: 'q', free: 3, names: ['n'] }]);
  });

  it('takes handed rows only into slots no held row covers, and hands back the rest', () => {
    const some = sideWith(3, 2);
    some.handOff.takeClaimed([row('q', 'a'), row('q', 'b')]);
    expect(some.placed).toEqual(['a']);
    expect(some.back).toEqual(['b']);

    const lone = sideWith(1, 1);
    lone.handOff.takeClaimed([row('q', 'c')]);
    expect(lone.placed).toEqual([]);
    expect(lone.back).toEqual(['c']);

    const room = sideWith(2, 1);
    room.handOff.takeClaimed([row('q', 'd')]);
    expect(room.placed).toEqual(['d']);
    expect(room.back).toEqual([]);
  });
});
