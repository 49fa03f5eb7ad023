import type { TaskDescriptor, TaskHandle } from '../declare/task';
import { JobDuplicateError } from '../errors/declaration-errors';

/**
 * Which recurring tasks this application schedules, by durable name: every task a `JobsModule.forFeature({ tasks })`
 * registered and every `@Task` method the explorer bound. A provider, like `JobRegistry`: one per application.
 */
export class TaskRegistry {
  readonly #tasks = new Map<string, TaskHandle>();

  /**
   * Registers a task. The same handle twice is one registration; a different handle under its name is
   * `X_JOB_DUPLICATE` — two copies of this package in one app can declare one name twice, and the name keys a
   * durable watermark.
   */
  register(task: TaskHandle): void {
    const current = this.#tasks.get(task.name);
    if (current === task) return;
    if (current !== undefined) {
      throw new JobDuplicateError(
        `Two different tasks are registered under the name "${task.name}".`,
        'A task name keys its durable watermark: rename one of them.',
        { name: task.name },
      );
    }
    this.#tasks.set(task.name, task);
  }

  /** The registered task under `name`. */
  get(name: string): TaskHandle | undefined {
    return this.#tasks.get(name);
  }

  /** Every registered task, in registration order. */
  all(): readonly TaskHandle[] {
    return [...this.#tasks.values()];
  }

  /** Every registered task's descriptor, by name. Reads each task's `entries()`, as `describe()` does. */
  manifest(): readonly TaskDescriptor[] {
    return this.all()
      .map((task) => task.describe())
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
