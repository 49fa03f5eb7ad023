import type { Clock } from '../util/clock';

/** An abort controller whose signal also follows `parent`, with the reason `parent` aborted with. */
export function childController(parent: AbortSignal): {
  controller: AbortController;
  dispose: () => void;
} {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, dispose: () => undefined };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => parent.removeEventListener('abort', onAbort) };
}

/**
 * Arms a deadline on `clock`: at `ms` it aborts `controller` with `reason()` and calls `onExpire`. Answers the disarm.
 * Absent `ms` arms nothing.
 */
export function armDeadline(
  clock: Clock,
  ms: number | undefined,
  controller: AbortController,
  reason: () => Error,
  onExpire?: () => void,
): () => void {
  if (ms === undefined) return () => undefined;
  const timer = clock.setTimeout(() => {
    if (!controller.signal.aborted) controller.abort(reason());
    onExpire?.();
  }, ms);
  return () => timer.cancel();
}

/**
 * What `work` answers, or a rejection with the signal's reason once `signal` aborts first. A value that is not a
 * promise is answered as it is (a synchronous step cannot be overtaken); the listener goes as soon as `work` settles,
 * so many steps under one attempt's signal leave none behind.
 */
export function raceAbort<T>(work: T | PromiseLike<T>, signal: AbortSignal): T | Promise<T> {
  if (!isPromiseLike(work)) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    // subscribed to `work` whatever happens, so its later rejection is never unhandled
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

const isPromiseLike = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';
