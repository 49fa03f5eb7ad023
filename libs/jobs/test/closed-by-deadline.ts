import type { FrozenClock } from '../src/testing/frozen-clock';

/**
 * Closes `app` and checks the close ends exactly at the shutdown deadline `deadlineMs` of `clock`: still under way a
 * millisecond before it, done once the clock reaches it (what is left then is promise turns, bounded by a real second).
 */
export async function expectClosedByDeadline(
  app: { close(): Promise<void> },
  clock: FrozenClock,
  deadlineMs: number,
  before: () => void = () => undefined,
): Promise<void> {
  let closed = false;
  const closing = app.close().then(() => void (closed = true));
  await clock.advance(deadlineMs - 1);
  before();
  expect(closed).toBe(false);
  await clock.advance(1);
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([
    closing,
    new Promise<void>((resolve) => {
      bound = setTimeout(resolve, 1_000);
    }),
  ]).finally(() => clearTimeout(bound));
  expect(closed).toBe(true);
}
