import { InvariantError } from '../errors/runtime-errors';
import { ConcurrencyUnenforceableError } from '../errors/operator-errors';
import type { JobRegistry } from '../registry/job-registry';
import { JOBS_CONCURRENCY_DEFAULT } from './worker-options';

/** The queues a worker serves with their slot counts, and the served queues no registered job names. */
export function resolveSlots(
  registry: JobRegistry,
  queues: readonly string[] | undefined,
  concurrency: number | Readonly<Record<string, number>> | undefined,
): { slots: Map<string, number>; unregistered: string[] } {
  const named = new Set(registry.all().map((j) => j.handle.queue));
  const served = queues ?? [...named];
  if (served.length === 0) {
    throw new InvariantError('jobWorker: no queue to serve.', 'Register a job, or pass queues.');
  }
  const slots = new Map<string, number>();
  for (const queue of served) {
    const n =
      typeof concurrency === 'number'
        ? concurrency
        : (concurrency?.[queue] ?? JOBS_CONCURRENCY_DEFAULT);
    if (!Number.isInteger(n) || n < 1) {
      throw new InvariantError(
        `jobWorker: concurrency for queue "${queue}" must be a whole number of at least 1 (got ${n}).`,
      );
    }
    slots.set(queue, n);
  }
  return { slots, unregistered: served.filter((q) => !named.has(q)) };
}

/**
 * Per served queue, the names of the registered jobs this worker serves there: all its claims hand out
 * (`ClaimSlot.names`). Refuses a fleet-wide `concurrency` cap on a served job when the driver has no lease store.
 */
export function servedNames(
  registry: JobRegistry,
  slots: ReadonlyMap<string, number>,
  hasLeases: boolean,
): Map<string, string[]> {
  const all = registry.all();
  const capped = all.filter((j) => j.handle.concurrency !== null && slots.has(j.handle.queue));
  if (capped.length > 0 && !hasLeases) {
    throw new ConcurrencyUnenforceableError(capped.map((j) => j.handle.name));
  }
  return new Map(
    [...slots.keys()].map((queue) => [
      queue,
      all.filter((j) => j.handle.queue === queue).map((j) => j.handle.name),
    ]),
  );
}

/** The names of the registered jobs declaring `retry.deadLetter: false`: their exhausted rows are buried `failed`. */
export function dropExhaustedNames(registry: JobRegistry): ReadonlySet<string> {
  return new Set(
    registry
      .all()
      .filter((j) => !j.handle.retry.deadLetter)
      .map((j) => j.handle.name),
  );
}
