import { uuidv7, type ClaimedJob, type EnqueueRequest } from '@ultimat3/jobs';
import type { PostgresJobDriver } from '../src/driver/pg-driver';
import { request } from './requests';

/** The low-water specs' queue, visibility timeout and driven clock's start. */
export const QUEUE = 'pg-q';
export const VT = 30_000;
export const START = Date.UTC(2026, 0, 1);

/** A request due at `runAt` whose id sorts by that time. */
export const at = (runAt: number, overrides: Partial<EnqueueRequest> = {}): EnqueueRequest =>
  request({ id: uuidv7(runAt), runAt, ...overrides });

/** One claim of at most one row of `QUEUE` as worker `w`, skipping `excludeTenants` when given. */
export const claimOne = (
  driver: PostgresJobDriver,
  excludeTenants?: string[],
): Promise<readonly ClaimedJob[]> =>
  driver.claim({
    workerId: 'w',
    slots: [{ queue: QUEUE, limit: 1 }],
    visibilityTimeoutMs: VT,
    ...(excludeTenants === undefined ? {} : { excludeTenants }),
  });

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
    visibilityTimeoutMs: VT,
  });
  expect(row?.id).toBe(id);
  await driver.nack(id, { workerId: 'w', claim: row!.claim, kind: 'handBack', error: null, runAt });
}
