import { uuidv7, type EnqueueRequest } from '@ultimat3/jobs';

let seq = 0;

/** A fresh request due now on `queue` (default `pg-q`), with a unique key unless `overrides` names one. */
export function request(overrides: Partial<EnqueueRequest> = {}): EnqueueRequest {
  const id = uuidv7();
  return {
    id,
    runId: uuidv7(),
    name: 'pg.job',
    queue: 'pg-q',
    input: { n: seq++ },
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
