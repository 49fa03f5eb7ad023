import { SetMetadata } from '@nestjs/common';
import { task, type TaskDefinition, type TaskEntry, type TaskHandle } from '../../declare/task';
import { TaskDeclarationInvalidError } from '../../errors/scheduler-errors';
import { InvariantError } from '../../errors/runtime-errors';
import { TASK_METADATA } from '../jobs.constants';

/** What `@Task()` takes: a `task()` declaration without `enqueue` (the method is it), and a name it cannot infer. */
export interface TaskMethodOptions extends Omit<TaskDefinition, 'enqueue' | 'name'> {
  /** REQUIRED: the durable key of the task's watermark (a method has no export name to take). */
  readonly name: string;
}

/** A method that can be a task's `enqueue`: given the occurrence, the `[[job, input], …]` it puts on the queue. */
export type TaskMethod = (occurrenceMs: number) => readonly TaskEntry[];

/** What `@Task` leaves on a method: the task it declared, and how a discovered provider instance serves it. */
export interface TaskMethodBinding {
  /** The task the method declared. */
  readonly handle: TaskHandle;
  /** `Class.method`, for logs. */
  readonly binder: string;
  /** Makes `instance` the one the task's entries are read from; answers the unbinding. */
  bind(instance: object): () => void;
}

/**
 * Declares a recurring task whose entries a provider method builds, so it can read injected services (synchronously:
 * a tick that does I/O belongs in a job the task enqueues). The task is declared when the class is — a bad cron, an
 * unknown zone or a name another task holds fails there, as a `task()` would — and served once the explorer has
 * bound the provider in a bootstrapped app. Request-scoped providers are warned about and skipped.
 *
 * With several apps in one process (tests), the newest app's instance answers, as the newest facade takes
 * `handle.enqueue()`.
 *
 * Where it differs from `@nestjs/schedule`'s `@Cron` (which takes the same expressions, `CronExpression` constants
 * included):
 * - **One leader across the fleet.** It fires only in a process holding the `scheduler` role, and there only while it
 *   holds the scheduler lease — once per occurrence for the whole fleet, where `@Cron` fires in every replica.
 * - **A durable watermark.** The last occurrence handled is stored under the task's `name`, and moves with the
 *   occurrence's jobs in one step: a restart resumes from it and never fires an occurrence twice. Rename the task and
 *   it starts afresh.
 * - **Catch-up.** Occurrences missed while no scheduler ran are decided by `catchUp` (`'skip'`, the default, fires the
 *   latest; `'run-once'` the earliest; `'run-all'` each); `@Cron` loses them.
 * - **A required zone.** `tz` names the IANA zone the wall clock is read in; `@Cron` defaults to the server's clock.
 * - **The method returns work, it does not do it.** The `[[job, input], …]` it answers are enqueued as jobs, each with
 *   its retries and an occurrence-scoped idempotency key; the method itself stays synchronous and cheap.
 *
 * @example
 * ```ts
 * @Task({ name: 'nightly-digest', cron: '0 2 * * *', tz: 'Europe/Berlin' })
 * digest(occurrenceMs: number): readonly TaskEntry[] {
 *   return [[sendDigest, { day: this.days.of(occurrenceMs) }]];
 * }
 * ```
 */
export function Task(
  options: TaskMethodOptions,
): <M extends TaskMethod>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void {
  return (target, key, descriptor) => {
    const binder = `${target.constructor.name}.${String(key)}`;
    if (typeof options !== 'object' || options === null || typeof options.name !== 'string') {
      throw new TaskDeclarationInvalidError(
        `@Task on ${binder}`,
        'name',
        'is required',
        'Pass @Task({ name, cron, tz }): a method has no export name to take.',
      );
    }
    if (typeof descriptor.value !== 'function') {
      throw new TaskDeclarationInvalidError(options.name, '@Task', 'decorates methods only');
    }
    const instances: object[] = [];
    const handle = task({
      ...options,
      enqueue: (occurrenceMs) => {
        const instance = instances.at(-1);
        if (instance === undefined) throw unbound(options.name, binder);
        const method = (instance as Readonly<Record<PropertyKey, unknown>>)[key] as TaskMethod;
        return method.call(instance, occurrenceMs);
      },
    });
    const binding: TaskMethodBinding = {
      handle,
      binder,
      bind(instance) {
        instances.push(instance);
        return () => {
          const at = instances.lastIndexOf(instance);
          if (at >= 0) instances.splice(at, 1);
        };
      },
    };
    SetMetadata(TASK_METADATA, binding)(target, key, descriptor);
  };
}

function unbound(name: string, binder: string): InvariantError {
  return new InvariantError(
    `Task "${name}" (@Task on ${binder}) has no provider instance: no running application discovered it.`,
    'Provide the class as a singleton in a module of the app, and call it after the app has bootstrapped.',
  );
}
