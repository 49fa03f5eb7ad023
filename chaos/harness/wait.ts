/** Polling waits for chaos specs (real time: the processes under test run on real clocks). */

/** Options of {@link until}. */
export interface UntilOptions {
  /** What is awaited, for the timeout's message (default `a condition`). */
  readonly what?: string;
  readonly timeoutMs: number;
  /** Poll interval (default 100 ms). */
  readonly everyMs?: number;
}

/** Polls `check` until it answers true; rejects naming `what` past the timeout. */
export async function until(
  check: () => boolean | Promise<boolean>,
  options: UntilOptions,
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() >= deadline)
      throw new Error(
        `timed out after ${options.timeoutMs} ms waiting for ${options.what ?? 'a condition'}`,
      );
    await sleep(options.everyMs ?? 100);
  }
}

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Sum of the live rows (ready, delayed, running, suspended) over a driver's `stats()`. */
export function liveRows(
  stats: readonly { ready: number; delayed: number; running: number; suspended: number }[],
): number {
  return stats.reduce((n, q) => n + q.ready + q.delayed + q.running + q.suspended, 0);
}
