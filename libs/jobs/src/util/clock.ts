/** A cancellable timer handle returned by {@link Clock.setTimeout}. */
export interface TimerHandle {
  /** Cancels the timer; a no-op once it fired. */
  cancel(): void;
}

/**
 * The one source of time for the runtime. Every time-dependent piece takes a clock, so a test drives time instead of
 * sleeping (see `frozenClock()` in `@ultimat3/jobs/testing`).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` after `ms` milliseconds of this clock's time. Timers never keep the process alive. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
}

/** Node's timers cap a delay at 2^31−1 ms; a longer one fires after 1 ms. Longer waits are re-armed in hops. */
export const MAX_TIMER_MS = 2_147_483_647;

/** The real clock: `Date.now()` and unref'd Node timers, re-armed in hops for delays past {@link MAX_TIMER_MS}. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    let handle: NodeJS.Timeout | undefined;
    const due = Date.now() + Math.max(0, ms);
    const arm = (): void => {
      const left = due - Date.now();
      handle = setTimeout(
        () => (left > MAX_TIMER_MS ? arm() : fn()),
        Math.min(Math.max(0, left), MAX_TIMER_MS),
      );
      handle.unref();
    };
    arm();
    return { cancel: () => clearTimeout(handle) };
  },
};
