import { uuidv7 } from '@ultimat3/jobs';
import { request } from '../../test/requests';
import { WAKE_DUE_WITHIN_MS, WAKE_SLOT_MS } from '../wake/wake-session';
import { epochMicros, idTimeMs, WakeMemo } from './pg-enqueue-wake-memo';

/** A slot's first instant, on the slot grid of the epoch. */
const T = Date.UTC(2026, 0, 1);
/** Epoch seconds as the insert statements answer them (numeric text, six decimals). */
const seconds = (us: number): string =>
  `${Math.floor(us / 1_000_000)}.${String(us % 1_000_000).padStart(6, '0')}`;
/** A request of queue `q` due at `runAt`, its id minted at `mintedAt`. */
const at = (mintedAt: number, runAt = mintedAt, queue = 'q') =>
  request({ id: uuidv7(mintedAt), runAt, queue });

describe('WakeMemo', () => {
  it('reads epoch seconds to the microsecond, as numeric text or as a float, and a UUIDv7 id its mint time', () => {
    expect(epochMicros('1767225600.004999')).toBe(T * 1000 + 4_999);
    expect(epochMicros('1767225600.000000')).toBe(T * 1000);
    expect(epochMicros('1767225600')).toBe(T * 1000);
    expect(epochMicros(1767225600.004999)).toBe(T * 1000 + 4_999);
    expect(epochMicros('-1.500000')).toBe(-1_500_000);
    expect(idTimeMs(uuidv7(T + 3))).toBe(T + 3);
  });

  it('with the statement clock known, sends a row of a slot its own committed sibling holds quietly, and no other', () => {
    const memo = new WakeMemo(() => 0);
    const sibling = at(T + 1);
    expect(memo.guard(sibling, T + 1, 0)).toBeUndefined(); // nothing known of the slot yet
    memo.learn(sibling, seconds((T + 1) * 1000), 0, 0);
    const slot = new Date(T).toISOString();
    expect(memo.guard(at(T + 2), T + 2, 0)).toBe(slot);
    expect(memo.guard(at(T + 4), T + WAKE_SLOT_MS - 1, 0)).toBe(slot);
    expect(memo.guard(at(T + 5), T + WAKE_SLOT_MS, 0)).toBeUndefined(); // the next slot
    expect(memo.guard(at(T + 2, T + 2, 'other'), T + 2, 0)).toBeUndefined(); // another queue
  });

  it('remembers no slot for a row minted in another slot, or due past the window', () => {
    const memo = new WakeMemo(() => 0);
    // created in the slot of T, its id minted a slot earlier: not the sibling the wake's sub-select looks for
    memo.learn(at(T - 1), seconds(T * 1000), 0, 0);
    expect(memo.guard(at(T + 1), T + 1, 0)).toBeUndefined();
    // due past the window: never announced, and silences nothing
    memo.learn(at(T, T + WAKE_DUE_WITHIN_MS + 1), seconds(T * 1000), 0, 0);
    expect(memo.guard(at(T + 1), T + 1, 0)).toBeUndefined();
    // due exactly at the window's edge: a sibling
    memo.learn(at(T, T + WAKE_DUE_WITHIN_MS), seconds(T * 1000), 0, 0);
    expect(memo.guard(at(T + 1), T + 1, 0)).toBe(new Date(T).toISOString());
  });

  it('sends a row due past the window quietly with no slot', () => {
    const memo = new WakeMemo(() => 0);
    expect(memo.guard(at(T, T + WAKE_DUE_WITHIN_MS + 1), T, 0)).toBeNull();
    expect(memo.guard(at(T, T + WAKE_DUE_WITHIN_MS), T, 0)).toBeUndefined();
  });

  it("estimates the database's clock from the last answer, give or take that statement's round trip", () => {
    const memo = new WakeMemo(() => 0);
    const slot = new Date(T).toISOString();
    // nothing answered yet: no estimate
    expect(memo.guard(at(T), undefined, 0)).toBeUndefined();
    // sent at 100 ms, answered at 100.4 ms; created 1 ms into the slot
    memo.learn(at(T + 1), seconds((T + 1) * 1000), 100, 100.4);
    // 2 ms later: the database is at ~T+3 ± 0.4 ms, inside the slot
    expect(memo.guard(at(T + 3), undefined, 102)).toBe(slot);
    // 3.7 ms later: ~T+4.7 + 0.4 may cross into the next slot
    expect(memo.guard(at(T + 4), undefined, 103.7)).toBeUndefined();
    // a row due past the window by more than the uncertainty
    expect(memo.guard(at(T, T + WAKE_DUE_WITHIN_MS + 10), undefined, 102)).toBeNull();
    // one that may fall due within it is sent under the slot's guard, and in another queue not quietly at all
    expect(memo.guard(at(T, T + WAKE_DUE_WITHIN_MS + 2), undefined, 102)).toBe(slot);
    expect(memo.guard(at(T, T + WAKE_DUE_WITHIN_MS + 2, 'other'), undefined, 102)).toBeUndefined();
  });
});
