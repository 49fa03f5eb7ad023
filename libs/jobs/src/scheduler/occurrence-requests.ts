import { createHash } from 'node:crypto';
import { prepareEnqueue } from '../declare/enqueue';
import type { TaskHandle } from '../declare/task';
import type { EnqueueRequest } from '../driver/job-driver';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../values/bounds';

/**
 * The idempotency key of entry `index` of one occurrence: `task:<task>:<occurrenceMs>:<index>:<job's own key>`. A
 * second fire of one occurrence lands on the row the first one queued, while a manual `task.enqueue()` — which keeps
 * the job's own key — stays a distinct run. When that would pass the key limit (a job's own key may use all of it),
 * the job's key is written as `sha256:<hex>` of it instead: still one key per entry, and one every driver stores.
 */
export function occurrenceKey(
  task: string,
  occurrenceMs: number,
  index: number,
  jobKey: string,
): string {
  const prefix = `task:${task}:${occurrenceMs}:${index}:`;
  if (prefix.length + jobKey.length <= MAX_IDEMPOTENCY_KEY_LENGTH) return prefix + jobKey;
  return `${prefix}sha256:${createHash('sha256').update(jobKey, 'utf8').digest('hex')}`;
}

/** An entry of an occurrence its job refused: its place in the task's list, the job, and what was thrown. */
export interface RefusedEntry {
  readonly index: number;
  readonly job: string;
  readonly error: unknown;
}

/** The rows one occurrence enqueues, and the entries refused on the way. */
export interface OccurrenceRequests {
  readonly requests: EnqueueRequest[];
  readonly refused: RefusedEntry[];
}

/**
 * Builds the rows one occurrence enqueues: each entry prepared exactly as `handle.enqueue()` would (schema, tenant,
 * ids, due now), then re-keyed to the occurrence. Each entry on its own: one the job refuses (`X_JOB_INPUT_INVALID`,
 * …) is answered in `refused` and the others are still built — one bad entry must not cost the others their
 * occurrence. A task whose `enqueue` itself throws throws (there are no entries to keep).
 */
export async function occurrenceRequests(
  task: TaskHandle,
  occurrenceMs: number,
  nowMs: number,
): Promise<OccurrenceRequests> {
  const entries = task.entries(occurrenceMs);
  const requests: EnqueueRequest[] = [];
  const refused: RefusedEntry[] = [];
  for (const [index, [handle, input]] of entries.entries()) {
    try {
      const request = await prepareEnqueue(handle, input as never, {}, undefined, nowMs);
      requests.push({
        ...request,
        idempotencyKey: occurrenceKey(task.name, occurrenceMs, index, request.idempotencyKey),
      });
    } catch (error) {
      refused.push({ index, job: handle.name, error });
    }
  }
  return { requests, refused };
}
