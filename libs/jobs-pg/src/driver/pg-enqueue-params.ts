import { inputJsonOf, type EnqueueRequest } from '@ultimat3/jobs';
import { iso } from './pg-context';

/**
 * The 15 parameters every single-enqueue statement takes (`SQL_ENQUEUE`, `SQL_ENQUEUE_INSERT`, and
 * `SQL_ENQUEUE_QUIET` before its own $16), in their order: $1 `now` (the statement's clock as ISO text, or null for
 * the database's `now()`), then the request's id, run id, name, queue, input (its JSON text, stored verbatim), key,
 * tenant, actor, due time, attempts, priority, concurrency key, traceparent and cross-tenant reason. The one place
 * they are built: the driver, its specs and the enqueue benchmarks send exactly these.
 */
export function singleEnqueueParams(request: EnqueueRequest, now: string | null): unknown[] {
  return [
    now,
    request.id,
    request.runId,
    request.name,
    request.queue,
    inputJsonOf(request),
    request.idempotencyKey,
    request.tenantId,
    request.enqueuedBy,
    iso(request.runAt),
    request.maxAttempts,
    request.priority,
    request.concurrencyKey,
    request.traceparent,
    request.crossTenantReason ?? null,
  ];
}
