import type { AckManyItem, EnqueueRequest } from '../src/driver/job-driver';
import { enqueueRequest } from '../src/testing/enqueue-request';
import { uuidv7 } from '../src/util/ids';

/**
 * The specs' enqueue request builder is the public one of `@ultimat3/jobs/testing` (name `test.job`, queue `test-q`,
 * input `{}`, fresh ids, due now; overrides win); re-exported here so specs keep importing it from one place.
 */
export { enqueueRequest };

/**
 * A builder of requests whose ids are minted in build order from one fixed instant (2026-01-01, a millisecond a
 * mint), so they sort as they were built: `defaults` over {@link enqueueRequest}'s, then each call's overrides.
 */
export function orderedRequests(
  defaults: Partial<EnqueueRequest>,
): (overrides?: Partial<EnqueueRequest>) => EnqueueRequest {
  let seq = 0;
  const newId = (): string => uuidv7(Date.UTC(2026, 0, 1) + seq++);
  return (overrides = {}) => enqueueRequest({ ...defaults, ...overrides }, { newId });
}

/** `n` acks for rows nobody claimed (fresh job ids and claim tokens, worker `w`): what a batch of acks sends. */
export function unclaimedAcks(n: number): AckManyItem[] {
  return Array.from({ length: n }, () => ({
    jobId: uuidv7(),
    workerId: 'w',
    claim: uuidv7(),
    durationMs: 1,
  }));
}
