import { BackfillDeclarationInvalidError } from '../errors/backfill-errors';
import { JobAbortedError } from '../errors/runtime-errors';
import type { Clock } from '../util/clock';

/**
 * Batches per second a backfill runs at when it declares no `rate`: 5,000 rows a second at the default batch, one
 * statement every 200 ms, so the pool spends the rest of each interval on the app.
 */
export const DEFAULT_BACKFILL_RATE = 5;

/** The `rate` of a declaration: finite and positive (fractions are rates too: 0.5 is a batch every 2 s). */
export function checkedRate(backfill: string, rate: unknown): number {
  if (rate === undefined) return DEFAULT_BACKFILL_RATE;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) {
    throw new BackfillDeclarationInvalidError(
      backfill,
      'rate',
      `must be a finite number of batches per second above 0 (got ${String(rate)})`,
      'There is no unthrottled mode: to go faster, raise the number (rate: 200 is the fast sweep).',
    );
  }
  return rate;
}

/**
 * How long a page started at `startedMs` still waits at `nowMs` so that pages start at most `rate` a second: one
 * interval at most, since a `startedMs` after `nowMs` is a clock that disagrees (the checkpoint of another host, an
 * NTP step back), never a page that has not begun.
 */
export function throttleWaitMs(rate: number, startedMs: number, nowMs: number): number {
  const interval = 1_000 / rate;
  return Math.min(interval, Math.max(0, interval - (nowMs - startedMs)));
}

/**
 * Waits out the rest of one page's interval on `clock`, inside the page's step (a replayed page re-pays nothing).
 * Unwinds as soon as `signal` aborts — with its reason when that is an error (a drain, a deadline), else `X_ABORTED` —
 * rather than sitting in a timer nobody is waiting for. A page that already took its interval waits for nothing.
 */
export function throttle(
  clock: Clock,
  rate: number,
  startedMs: number,
  signal: AbortSignal,
): Promise<void> {
  const waitMs = throttleWaitMs(rate, startedMs, clock.now());
  if (signal.aborted) return Promise.reject(abortReason(signal));
  if (waitMs <= 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel();
      reject(abortReason(signal));
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, waitMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new JobAbortedError('the backfill throttle was waiting when the run was cancelled');
}
