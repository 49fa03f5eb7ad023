import { JobDuplicateError } from '../../errors/declaration-errors';
import type { EnqueueRequest, EnqueueResult } from '../job-driver';
import type { JobRow } from '../job-row';
import type { JsonValue } from '../../util/json';
import { inputJsonOf } from '../../values/checked-input';
import type { MemoryStore } from './memory-store';

/** The error an enqueue under `onConflict: 'error'` meets when a live row holds its key. */
export function liveKeyConflict(
  row: Pick<JobRow, 'name' | 'tenantId' | 'idempotencyKey'>,
  holder: JobRow,
): JobDuplicateError {
  const tenant = row.tenantId ? ` for tenant "${row.tenantId}"` : '';
  return new JobDuplicateError(
    `Job "${row.name}" already has a live run (job ${holder.id}, ${holder.state}) under idempotency key "${row.idempotencyKey}"${tenant}.`,
    "Wait for that run to finish, or enqueue with onConflict: 'dedupe' to receive its ids.",
    { job: row.name, id: holder.id, runId: holder.runId, state: holder.state },
  );
}

/**
 * Inserts one row, or answers the row that holds its id (live or finished) or its live key. The id is checked first,
 * so a republish of a staged request meets its own job even under `onConflict: 'error'`.
 */
export function enqueueOne(store: MemoryStore, request: EnqueueRequest): EnqueueResult {
  const byId = store.get(request.id);
  if (byId) return { id: byId.id, runId: byId.runId, deduped: true };

  const holder = store.liveHolder(request);
  if (holder) {
    if (request.onConflict === 'error') throw liveKeyConflict(request, holder);
    return { id: holder.id, runId: holder.runId, deduped: true };
  }

  const now = store.now();
  store.put({
    id: request.id,
    runId: request.runId,
    name: request.name,
    queue: request.queue,
    // the text the value contract checked (the common path's own encoding when it carries one), read back as a copy
    input: JSON.parse(inputJsonOf(request) ?? 'null') as JsonValue,
    idempotencyKey: request.idempotencyKey,
    tenantId: request.tenantId,
    enqueuedBy: request.enqueuedBy,
    state: request.runAt > now ? 'delayed' : 'ready',
    attempt: 0,
    maxAttempts: request.maxAttempts,
    priority: request.priority,
    runAt: request.runAt,
    createdAt: now,
    updatedAt: now,
    workerId: null,
    claim: null,
    leaseExpiresAt: null,
    lastError: null,
    progress: null,
    concurrencyKey: request.concurrencyKey,
    traceparent: request.traceparent,
    finishedAt: null,
    crossTenantReason: request.crossTenantReason ?? null,
  });
  return { id: request.id, runId: request.runId, deduped: false };
}

/**
 * Enqueues each request in order, so a later one dedupes against an earlier one of the same batch. All or nothing,
 * like the one statement the pg driver runs: a conflict under `onConflict: 'error'` takes back the rows the batch
 * already inserted before it throws.
 */
export function enqueueBatch(
  store: MemoryStore,
  requests: readonly EnqueueRequest[],
): EnqueueResult[] {
  const results: EnqueueResult[] = [];
  try {
    for (const request of requests) results.push(enqueueOne(store, request));
  } catch (error) {
    for (const result of results) if (!result.deduped) store.delete(result.id);
    throw error;
  }
  return results;
}
