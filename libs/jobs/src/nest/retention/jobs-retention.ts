import type { AnyJobHandle } from '../../declare/handle';
import { job } from '../../declare/job';
import { DEFAULT_PURGE_CRON, purgePass } from '../../declare/purge';
import { task, type TaskHandle } from '../../declare/task';
import type { JobDriver } from '../../driver/job-driver';
import {
  resolveRetention,
  type PurgeTarget,
  type ResolvedRetention,
  type RetentionPolicy,
} from '../../driver/retention';
import { InvariantError } from '../../errors/runtime-errors';
import type { JobRegistry } from '../../registry/job-registry';
import { t } from '../../schema/t';
import type { Clock } from '../../util/clock';
import type { TaskRegistry } from '../task.registry';

/** The durable name of the module's own sweep job. */
export const RETENTION_JOB = 'jobs.retention.sweep';
/** The durable name of the module's own task, which fires the sweep hourly ({@link DEFAULT_PURGE_CRON}, UTC). */
export const RETENTION_TASK = 'jobs.retention';
/** The queue of the module's own sweep: its own, so a long sweep never holds a slot of an app's queue. */
export const RETENTION_QUEUE = 'jobs.retention';

/**
 * `JobsModule.forRoot({ retention })`: how long the package's own tables keep what they no longer need (finished jobs
 * with their steps, published outbox rows, expired events, counter buckets, worker rows), swept hourly by the
 * module's own job. Every field has a default; `retention: false` registers nothing.
 */
export type JobsRetentionOptions = RetentionPolicy;

interface RetentionDeclarations {
  readonly sweep: AnyJobHandle;
  readonly task: TaskHandle;
}

let declarations: RetentionDeclarations | undefined;

/**
 * The sweep and its task, declared once per process: a durable name is seated once, however many apps a process
 * boots. The sweep has no inline body — each app binds its own, over its own driver and policy.
 */
function retentionDeclarations(): RetentionDeclarations {
  if (declarations === undefined) {
    const sweep = job({
      name: RETENTION_JOB,
      queue: RETENTION_QUEUE,
      input: t.object({}),
      // one sweep live at a time: a fire while one still runs dedupes to it
      idempotencyKey: () => 'sweep',
      tenant: 'none',
    });
    const fire = task({
      name: RETENTION_TASK,
      cron: DEFAULT_PURGE_CRON,
      tz: 'UTC',
      // a sweep empties everything past its age: one after downtime does the work of every missed one
      catchUp: 'run-once',
      enqueue: () => [[sweep, {}]],
    });
    declarations = { sweep, task: fire };
  }
  return declarations;
}

/**
 * Registers the module's own retention sweep in THIS app: the job in every process, bound to a body over this app's
 * `targets(policy)` (read per attempt: the driver's own `purgeTargets(policy)`, and what the module adds, such as the
 * outbox store's) and clock, so any worker can run it; the task in every process too, fired only where the scheduler
 * role runs, by its leader. Answers the task's name (so the app's own
 * task notices can leave it out), or nothing when `option` is `false` or the driver names no purge targets. A bad
 * duration or batch is `X_INVARIANT` here, at boot.
 */
export function registerRetention(
  option: JobsRetentionOptions | false | undefined,
  driver: JobDriver,
  clock: Clock,
  registries: { readonly jobs: JobRegistry; readonly tasks: TaskRegistry },
  targets: (policy: ResolvedRetention) => readonly PurgeTarget[] = (policy) =>
    driver.purgeTargets?.(policy) ?? [],
): string | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'object' || option === null)) {
    throw new InvariantError(
      `JobsModule: retention must be an object or false (got ${String(option)}).`,
      'Pass retention: { finishedMs, deadMs, batchSize } (every field optional), or false for no sweep.',
    );
  }
  const policy = resolveRetention(option ?? {});
  if (driver.purgeTargets === undefined) return undefined;
  const { sweep, task: fire } = retentionDeclarations();
  registries.jobs.bind(
    sweep,
    ({ step }) => purgePass(RETENTION_JOB, targets(policy), clock, step),
    'JobsModule.retention',
  );
  registries.tasks.register(fire);
  return fire.name;
}
