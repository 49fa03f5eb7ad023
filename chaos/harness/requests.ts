/** Enqueue requests built by hand, as a caller bypassing the job handle sends them (the drivers' own input). */
import { uuidv7, type EnqueueRequest } from '@ultimat3/jobs';

/** What a scenario's request names; every other field takes {@link chaosRequest}'s default. */
export type ChaosRequestFields = Pick<
  EnqueueRequest,
  'name' | 'queue' | 'input' | 'idempotencyKey' | 'maxAttempts'
> &
  Partial<EnqueueRequest>;

/**
 * A request of `fields`; unless they say otherwise: fresh ids, due now, no tenant, no enqueuer, priority 0, deduped on
 * its key, no concurrency key, no trace.
 */
export function chaosRequest(fields: ChaosRequestFields): EnqueueRequest {
  return {
    id: uuidv7(),
    runId: uuidv7(),
    tenantId: null,
    enqueuedBy: null,
    runAt: Date.now(),
    priority: 0,
    onConflict: 'dedupe',
    concurrencyKey: null,
    traceparent: null,
    ...fields,
  };
}
