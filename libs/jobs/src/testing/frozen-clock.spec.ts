import { errorCodeOf } from '../errors';
import { frozenClock, MAX_TIMERS_AT_ONE_INSTANT } from './frozen-clock';

/** Arms a timer of 0 ms that re-arms itself on every turn, as a retry without a delay would; counts its turns. */
function loopAtOneInstant(clock: ReturnType<typeof frozenClock>): { turns: () => number } {
  let turns = 0;
  const turn = (): void => {
    turns += 1;
    clock.setTimeout(turn, 0);
  };
  clock.setTimeout(turn, 0);
  return { turns: () => turns };
}

describe('frozenClock', () => {
  it('fires due timers in order of due time, then of arming, and lands on the target', async () => {
    const clock = frozenClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b@20'), 20);
    clock.setTimeout(() => fired.push('a@10'), 10);
    clock.setTimeout(() => fired.push('c@20'), 20);
    clock.setTimeout(() => fired.push('late'), 31);
    await clock.advance(30);
    expect(fired).toEqual(['a@10', 'b@20', 'c@20']);
    expect(clock.now()).toBe(30);
    expect(clock.pending()).toBe(1);
  });

  it('refuses a loop that re-arms a timer at one instant with X_INVARIANT, instead of spinning past the test', async () => {
    const clock = frozenClock(0);
    const loop = loopAtOneInstant(clock);
    let error: unknown;
    await clock.advance(1_000).catch((e: unknown) => (error = e));
    expect(errorCodeOf(error)).toBe('X_INVARIANT');
    expect(String(error)).toContain('1970-01-01T00:00:00.000Z');
    expect(loop.turns()).toBe(MAX_TIMERS_AT_ONE_INSTANT);
    // nothing fires after the refusal: the loop stays stopped until a test moves the clock again
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(loop.turns()).toBe(MAX_TIMERS_AT_ONE_INSTANT);
  });

  it('bounds flush() the same way', async () => {
    const clock = frozenClock(0);
    loopAtOneInstant(clock);
    await expect(clock.flush()).rejects.toMatchObject({ code: 'X_INVARIANT' });
  });

  it('counts per instant: more timers than the bound in one advance are fine when time moves between them', async () => {
    const clock = frozenClock(0);
    let turns = 0;
    // a timer every ms: one timer at each of more instants than the bound
    const tick = (): void => {
      turns += 1;
      clock.setTimeout(tick, 1);
    };
    clock.setTimeout(tick, 1);
    await clock.advance(MAX_TIMERS_AT_ONE_INSTANT + 10);
    expect(turns).toBe(MAX_TIMERS_AT_ONE_INSTANT + 10);
  });
});
