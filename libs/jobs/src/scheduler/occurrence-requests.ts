import { prepareEnqueue } from '../declare/enqueue';
import type { TaskHandle } from '../declare/task';
import type { EnqueueRequest } from '../driver/job-driver';

/**
 * The idempotency key of entry `index` of one occurrence: `task:<task>:<occurrenceMs>:<index>:<job's own key>`. A
 * second fire of one occurrence lands on the row the first one queued, while a manual `task.enqueue()` — which keeps
 * the job's own key — stays a distinct run.
 */
export function occurrenceKey(
  task: string,
  occurrenceMs: number,
  index: number,
  jobKey: string,
): string {
  return `task:${task}:${occurrenceMs}:${index}:${jobKey}`;
}

/**
 * Builds the rows one occurrence enqueues: each entry prepared exactly as `handle.enqueue()` would (schema, tenant,
 * ids, due now), then re-keyed to the occurrence. Throws what `prepareEnqueue` throws (`X_JOB_INPUT_INVALID`, …).
 */
export async function occurrenceRequests(
  task: TaskHandle,
  occurrenceMs: number,
  nowMs: number,
): Promise<EnqueueRequest[]> {
  const entries = task.entries(occurrenceMs);
  const requests: EnqueueRequest[] = [];
  for (const [index, [handle, input]] of entries.entries()) {
    const request = await prepareEnqueue(handle, input as never, {}, undefined, nowMs);
    requests.push({
      ...request,
      idempotencyKey: occurrenceKey(task.name, occurrenceMs, index, request.idempotencyKey),
    });
  }
  return requests;
}
