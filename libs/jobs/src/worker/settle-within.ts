import type { Clock, TimerHandle } from '../util/clock';

/**
 * Waits for `work` until `deadlineAt` (epoch ms on `clock`); without a deadline, as long as it takes. Answers whether
 * it settled in time; its rejection, when it settles in time, is thrown. The deadline's timer is cancelled either way.
 */
export async function settleWithin(
  work: Promise<unknown>,
  deadlineAt: number | undefined,
  clock: Clock,
): Promise<boolean> {
  if (deadlineAt === undefined) {
    await work;
    return true;
  }
  let timer: TimerHandle | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = clock.setTimeout(() => resolve(false), Math.max(0, deadlineAt - clock.now()));
  });
  try {
    return await Promise.race([work.then(() => true as const), deadline]);
  } finally {
    timer?.cancel();
  }
}
