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

/** A promise that rejects with the signal's reason once it aborts (never settles otherwise). */
export function abortedPromise(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
