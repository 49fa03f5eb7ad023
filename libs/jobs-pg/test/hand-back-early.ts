import type { EnqueueRequest } from '@ultimat3/jobs';
import type { PostgresJobDriver } from '../src/driver/pg-driver';

/**
 * Enqueues `early`, claims it alone from `queue` as worker `w` and hands it back to run at `runAt`: the row a claim
 * low-water spec then expects the next claim to see.
 */
export async function handBackEarly(
  driver: PostgresJobDriver,
  queue: string,
  early: EnqueueRequest,
  runAt: number,
): Promise<void> {
  await driver.enqueue(early);
  const [row] = await driver.claim({
    workerId: 'w',
    slots: [{ queue, limit: 1 }],
    visibilityTimeoutMs: 30_000,
  });
  expect(row?.id).toBe(early.id);
  await driver.nack(early.id, {
    workerId: 'w',
    claim: row!.claim,
    kind: 'handBack',
    error: null,
    runAt,
  });
}
