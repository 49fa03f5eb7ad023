import { job } from '../src/declare/job';
import type { JobHandle } from '../src/declare/handle';
import { task, type TaskDefinition, type TaskHandle } from '../src/declare/task';
import { t } from '../src/schema';

/** The job the scheduler specs' tasks enqueue: one run an occurrence, keyed `tick:<occurrenceMs>`. */
export type TickJob = JobHandle<{ occurrenceMs: number }>;

/** Declares `<prefix>.tick`, keyed by its occurrence (a spec file's own name as prefix keeps declarations apart). */
export function tickJob(prefix: string): TickJob {
  return job({
    name: `${prefix}.tick`,
    input: t.object({ occurrenceMs: t.number.int() }),
    idempotencyKey: ({ occurrenceMs }) => `tick:${occurrenceMs}`,
    tenant: 'none',
  });
}

/** Declares task `name` on `cron` in UTC, enqueueing one `tick` an occurrence; `options` sets its catch-up. */
export function tickTask(
  tick: TickJob,
  name: string,
  cron: string,
  options: Pick<TaskDefinition, 'catchUp' | 'maxCatchUp'> = {},
): TaskHandle {
  return task({
    name,
    cron,
    tz: 'UTC',
    ...options,
    enqueue: (occurrenceMs) => [[tick, { occurrenceMs }]],
  });
}
