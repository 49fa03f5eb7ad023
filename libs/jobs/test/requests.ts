import { uuidv7 } from '../src/util/ids';
import type { EnqueueRequest } from '../src/driver/job-driver';

/**
 * An enqueue request as another process would send it: fresh UUIDv7 `id` and `runId`, idempotency key `key:<id>`,
 * due now, 3 attempts, priority 0, no tenant, no concurrency key, no trace; `overrides` win over every field (the key
 * stays `key:` the fresh id unless `overrides` names one). Name, queue and input default to `test.job`, `test-q`, `{}`:
 * a spec names its own.
 */
export function enqueueRequest(overrides: Partial<EnqueueRequest> = {}): EnqueueRequest {
  const id = uuidv7();
  return {
    id,
    runId: uuidv7(),
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
