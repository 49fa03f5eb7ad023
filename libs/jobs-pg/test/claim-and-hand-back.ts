import type { PostgresJobDriver } from '../src/driver/pg-driver';

/**
 * Claims the one waiting row `id` from `queue` as worker `w` and hands it back to run at `runAt`: the row a claim
 * low-water spec then expects the next claim to see.
 */
export async function claimAndHandBack(
  driver: PostgresJobDriver,
  queue: string,
  id: string,
  runAt: number,
): Promise<void> {
  const [row] = await driver.claim({
    workerId: 'w',
    slots: [{ queue, limit: 1 }],
    visibilityTimeoutMs: 30_000,
  });
  expect(row?.id).toBe(id);
  await driver.nack(id, { workerId: 'w', claim: row!.claim, kind: 'handBack', error: null, runAt });
}
