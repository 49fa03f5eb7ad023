import { InvariantError } from '../errors/runtime-errors';
import type { Clock, TimerHandle } from '../util/clock';

/**
 * How many timers may fire one after another at one instant before {@link FrozenClock.advance} and
 * {@link FrozenClock.flush} refuse: a timer re-armed at 0 ms on every turn is a loop that never lets time pass, and
 * without a bound the test would spin until its timeout, and on past it.
 */
export const MAX_TIMERS_AT_ONE_INSTANT = 10_000;

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/** A clock that stands still until a test moves it; its timers fire only inside {@link FrozenClock.advance}. */
export interface FrozenClock extends Clock {
  /**
   * Moves time forward by `ms`, firing every timer that falls due in order, letting promises settle between them.
   * Rejects with `X_INVARIANT`, firing nothing more, once {@link MAX_TIMERS_AT_ONE_INSTANT} timers fired at one
   * instant: the code under test re-arms a timer of 0 ms in a loop.
   */
  advance(ms: number): Promise<void>;
  /** Lets pending promise callbacks (and timers due now) run without moving time; bounded as `advance` is. */
  flush(): Promise<void>;
  /** How many timers are armed. */
  pending(): number;
}

/** Lets queued promise callbacks run: one macrotask turn drains every microtask chain, however deep (memory work is promise-only). */
async function settle(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

function loopAt(now: number): InvariantError {
  return new InvariantError(
    `frozenClock: ${MAX_TIMERS_AT_ONE_INSTANT} timers fired at ${new Date(now).toISOString()} without time moving on: something re-arms a timer of 0 ms in a loop.`,
    'find the loop that arms its next turn at once (a retry or a poll after a failure wants a delay, not 0 ms)',
  );
}

/** A clock frozen at `startMs` (default 2026-01-01T00:00:00Z). */
export function frozenClock(startMs: number = Date.UTC(2026, 0, 1)): FrozenClock {
  let now = startMs;
  let seq = 0;
  let timers: Timer[] = [];

  /** The index of the earliest live timer due by `limit` (ties go to the first armed), or -1. */
  const nextDue = (limit: number): number => {
    let best = -1;
    for (let i = 0; i < timers.length; i++) {
      const t = timers[i]!;
      if (t.cancelled || t.at > limit) continue;
      const b = timers[best];
      if (!b || t.at < b.at || (t.at === b.at && t.seq < b.seq)) best = i;
    }
    return best;
  };

  const fireDue = async (limit: number): Promise<void> => {
    await settle();
    let instant = now;
    let firedAtInstant = 0;
    for (;;) {
      const index = nextDue(limit);
      if (index < 0) break;
      const [t] = timers.splice(index, 1) as [Timer];
      now = Math.max(now, t.at);
      firedAtInstant = now === instant ? firedAtInstant + 1 : 1;
      instant = now;
      if (firedAtInstant > MAX_TIMERS_AT_ONE_INSTANT) throw loopAt(now);
      t.fn();
      await settle();
    }
    timers = timers.filter((t) => !t.cancelled);
  };

  return {
    now: () => now,
    setTimeout(fn: () => void, ms: number): TimerHandle {
      const timer: Timer = { at: now + Math.max(0, ms), seq: seq++, fn, cancelled: false };
      timers.push(timer);
      return {
        cancel: () => {
          timer.cancelled = true;
        },
      };
    },
    async advance(ms: number): Promise<void> {
      const target = now + ms;
      await fireDue(target);
      now = target;
      await settle();
    },
    flush: () => fireDue(now),
    pending: () => timers.filter((t) => !t.cancelled).length,
  };
}
