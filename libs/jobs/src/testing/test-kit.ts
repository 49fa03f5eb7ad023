import { errorCodeOf } from '../errors/jobs-error';
import type { FrozenClock } from './frozen-clock';

/** A promise a test opens by hand: a body "working" for as long as the test says. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Rejects with the signal's reason once it aborts: a body that honours its signal and nothing else. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Resolves after `ms` of the frozen clock: a body busy for that long. */
export function busyFor(clock: FrozenClock, ms: number): Promise<void> {
  return new Promise<void>((resolve) => void clock.setTimeout(resolve, ms));
}

/** The code `fn` throws (synchronously or by rejecting), or undefined when it does not throw. */
export async function thrownCode(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    return errorCodeOf(error);
  }
  return undefined;
}
