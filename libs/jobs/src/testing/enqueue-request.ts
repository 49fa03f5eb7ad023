import type { EnqueueRequest } from '../driver/job-driver';
import { uuidv7 } from '../util/ids';

/** How {@link enqueueRequest} mints ids; fresh UUIDv7s unless a test needs its own sequence. */
export interface EnqueueRequestOptions {
  /** Mints `id` first, then `runId`. Default: a fresh UUIDv7 each call. */
  readonly newId?: () => string;
}

/**
 * A driver-level `EnqueueRequest` as another process would send it, for tests and conformance suites: fresh `id` and
 * `runId` (minted in that order by `options.newId`), idempotency key `key:<id>`, due now (`Date.now()`), 3 attempts,
 * priority 0, dedupe on conflict, no tenant, actor, concurrency key or trace. Name, queue and input default to
 * `test.job`, `test-q` and `{}`. `overrides` win over every field; the key stays `key:` the minted id unless
 * `overrides` names one (an overridden `id` does not change it).
 *
 * @example
 * ```ts
 * await driver.enqueue(enqueueRequest({ queue: 'mail', name: 'mail.send', input: { to: 'a@b.c' } }));
 * ```
 */
export function enqueueRequest(
  overrides: Partial<EnqueueRequest> = {},
  options: EnqueueRequestOptions = {},
): EnqueueRequest {
  const newId = options.newId ?? (() => uuidv7());
  const id = newId();
  return {
    id,
    runId: newId(),
    name: 'test.job',
    queue: 'test-q',
    input: {},
    idempotencyKey: `key:${id}`,
    tenantId: null,
    enqueuedBy: null,
    runAt: Date.now(),
    maxAttempts: 3,
    priority: 0,
    onConflict: 'dedupe',
    concurrencyKey: null,
    traceparent: null,
    ...overrides,
  };
}
