import { DeclaredName } from './declared-name';
import type { EnqueueResult } from '../driver/job-driver';
import { TaskDeclarationInvalidError } from '../errors/scheduler-errors';
import { compileCron, type CronSchedule } from '../scheduler/cron-schedule';
import { hasJobsFacade, jobsFacade } from './ambient';
import type { AnyJobHandle, EnqueueOptions } from './handle';
import { isJobHandle } from './job';
import { assertName, MAX_JOB_NAME_LENGTH } from './names';

/** What a scheduler back from downtime fires of the occurrences it missed. */
export type CatchUpPolicy = 'skip' | 'run-once' | 'run-all';

/** The catch-up policies, in the order the docs list them. */
export const CATCH_UP_POLICIES: readonly CatchUpPolicy[] = ['skip', 'run-once', 'run-all'];

/** How many missed occurrences one round walks for `run-all` when the task sets no `maxCatchUp` (default 10). */
export const DEFAULT_MAX_CATCH_UP = 10;

/** One job a task puts on the queue, and its input. The input is checked by the job's schema when it is enqueued. */
export type TaskEntry = readonly [job: AnyJobHandle, input: unknown];

/** The declaration `task()` takes. */
export interface TaskDefinition {
  /** The durable name the watermark is kept under; the export name when omitted (stamped at registration). */
  readonly name?: string;
  /** 5 fields (`minute hour day month weekday`), or 6 with seconds first for fast schedules. */
  readonly cron: string;
  /** REQUIRED: the IANA zone the cron's wall clock is read in (`'UTC'`, `'Europe/Berlin'`). */
  readonly tz: string;
  /**
   * What fires after downtime (default `'skip'`): `skip` the true latest missed occurrence only, `run-once` the
   * earliest missed one (the watermark passes the rest), `run-all` every one of them, `maxCatchUp` per round.
   */
  readonly catchUp?: CatchUpPolicy;
  /** How many missed occurrences one round walks for `run-all` (default 10). */
  readonly maxCatchUp?: number;
  /**
   * The jobs one occurrence enqueues, as `[[job, input], …]`. Synchronous by design: `describe()` reads it to name the
   * task's jobs, and a task doing I/O in its tick is doing a job's work — fan out from a job instead.
   */
  readonly enqueue: (occurrenceMs: number) => readonly TaskEntry[];
}

/** The JSON manifest row of one task. */
export interface TaskDescriptor {
  /** Always `'task'`: tells a task's manifest row from a job's. */
  readonly kind: 'task';
  /** The durable name the task's watermark is kept under. */
  readonly name: string;
  /** The declared cron expression. */
  readonly cron: string;
  /** The IANA zone the cron's wall clock is read in. */
  readonly tz: string;
  /** What fires after downtime. */
  readonly catchUp: CatchUpPolicy;
  /** How many missed occurrences one round walks for `run-all`. */
  readonly maxCatchUp: number;
  /** The job names the task enqueues, in declaration order, each once. */
  readonly jobs: readonly string[];
}

/** Options of a manual `task.enqueue()`: the per-job enqueue options, and the instant the entries are built for. */
export type TaskEnqueueOptions = Omit<EnqueueOptions, 'runId'> & {
  /** The `occurrenceMs` handed to the task's `enqueue` (default: the facade's now). */
  readonly occurrenceMs?: number;
};

/** The surface of one recurring task: its schedule, its entries, a manual fire and its manifest row. */
export interface TaskHandle {
  /** Always `'task'`: tells a task handle from a job handle. */
  readonly kind: 'task';
  /** The durable key of the task's watermark, pause and fire record. */
  readonly name: string;
  /** Whether `name:` was set on the declaration (an explicit name is never re-stamped). */
  readonly explicitName: boolean;
  /** The declared cron expression. */
  readonly cron: string;
  /** The IANA zone the cron's wall clock is read in. */
  readonly tz: string;
  /** What fires after downtime (default `'skip'`). */
  readonly catchUp: CatchUpPolicy;
  /** How many missed occurrences one round walks for `run-all` (default 10). */
  readonly maxCatchUp: number;
  /** The resolver the scheduler fires by; `nextTaskRun(task, from)` reads it. */
  readonly schedule: CronSchedule;
  /** The declared `[job, input]` pairs for one occurrence (default: now). Synchronous; enqueues nothing. */
  entries(occurrenceMs?: number): readonly TaskEntry[];
  /** Fires every entry now through each job's own `enqueue` (its own idempotency key): one result per entry. */
  enqueue(options?: TaskEnqueueOptions): Promise<readonly EnqueueResult[]>;
  /** The manifest row; reads `entries()` for the job names. */
  describe(): TaskDescriptor;
  /**
   * Moves an unnamed declaration onto its export name. Internal to registration: an explicit name is never moved, and
   * a second, different export name is `X_JOB_DUPLICATE` (the alias would move the watermark's key).
   */
  stampExportName(exportName: string): void;
}

const TASK = Symbol.for('@ultimat3/jobs.task');

/** Whether `value` is a handle `task()` returned (a look-alike object is not). */
export function isTaskHandle(value: unknown): value is TaskHandle {
  return (
    typeof value === 'object' && value !== null && (value as { [TASK]?: unknown })[TASK] === true
  );
}

class TaskHandleImpl implements TaskHandle {
  readonly [TASK] = true;
  readonly kind = 'task' as const;
  readonly explicitName: boolean;
  readonly cron: string;
  readonly tz: string;
  readonly catchUp: CatchUpPolicy;
  readonly maxCatchUp: number;
  readonly schedule: CronSchedule;
  readonly #enqueue: (occurrenceMs: number) => readonly TaskEntry[];
  readonly #name: DeclaredName;

  constructor(def: TaskDefinition) {
    const explicit = def.name !== undefined;
    const label = explicit ? String(def.name) : 'anonymous';
    if (explicit) assertName(label, 'name', def.name, MAX_JOB_NAME_LENGTH);
    this.schedule = compileCron(label, def.cron, def.tz);
    if (def.catchUp !== undefined && !CATCH_UP_POLICIES.includes(def.catchUp)) {
      throw new TaskDeclarationInvalidError(
        label,
        'catchUp',
        "must be 'skip', 'run-once' or 'run-all'",
      );
    }
    const max = def.maxCatchUp ?? DEFAULT_MAX_CATCH_UP;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new TaskDeclarationInvalidError(
        label,
        'maxCatchUp',
        'must be a whole number of at least 1',
      );
    }
    if (typeof def.enqueue !== 'function') {
      throw new TaskDeclarationInvalidError(
        label,
        'enqueue',
        'must be a function (occurrenceMs) => [[job, input], …]',
      );
    }
    this.cron = def.cron;
    this.tz = def.tz;
    this.catchUp = def.catchUp ?? 'skip';
    this.maxCatchUp = max;
    this.#enqueue = def.enqueue;
    this.explicitName = explicit;
    this.#name = new DeclaredName('task', this, explicit ? String(def.name) : undefined);
  }

  get name(): string {
    return this.#name.value;
  }

  stampExportName(exportName: string): void {
    this.#name.stamp(exportName);
  }

  entries(
    occurrenceMs: number = hasJobsFacade() ? jobsFacade().now() : Date.now(),
  ): readonly TaskEntry[] {
    const answered: unknown = this.#enqueue(occurrenceMs);
    if (typeof (answered as { then?: unknown } | null)?.then === 'function') {
      throw this.#badEntries(
        'answered a promise; it must be synchronous — fan out from a job instead',
      );
    }
    if (!Array.isArray(answered))
      throw this.#badEntries('must answer an array of [job, input] pairs');
    answered.forEach((entry: unknown, i) => {
      if (!Array.isArray(entry) || entry.length !== 2 || !isJobHandle(entry[0])) {
        throw this.#badEntries(`entry ${i} is not a [job, input] pair whose job is a job() handle`);
      }
    });
    return answered as readonly TaskEntry[];
  }

  async enqueue(options: TaskEnqueueOptions = {}): Promise<readonly EnqueueResult[]> {
    const { occurrenceMs, ...perJob } = options;
    const results: EnqueueResult[] = [];
    for (const [handle, input] of this.entries(occurrenceMs ?? jobsFacade().now())) {
      results.push(await handle.enqueue(input as never, perJob));
    }
    return results;
  }

  describe(): TaskDescriptor {
    const jobs: string[] = [];
    for (const [handle] of this.#namingEntries()) {
      if (!jobs.includes(handle.name)) jobs.push(handle.name);
    }
    return {
      kind: 'task',
      name: this.#name.value,
      cron: this.cron,
      tz: this.tz,
      catchUp: this.catchUp,
      maxCatchUp: this.maxCatchUp,
      jobs,
    };
  }

  /**
   * The entries `describe()` names the task's jobs from: `entries()` at now, where an `enqueue` that throws is
   * `X_JOB_DECLARATION_INVALID` naming the task and wrapping the throw — a manifest, `x tasks list --app` or the admin
   * page's tasks would otherwise fail with the bare error and no word of which task threw.
   */
  #namingEntries(): readonly TaskEntry[] {
    try {
      return this.entries();
    } catch (error) {
      if (error instanceof TaskDeclarationInvalidError) throw error;
      throw new TaskDeclarationInvalidError(
        this.#name.value,
        'enqueue(occurrenceMs)',
        `threw when called to name the task's jobs (${error instanceof Error ? error.message : String(error)})`,
        "The manifest calls enqueue(now) to name the jobs a task enqueues: make it answer its [job, input] pairs for any instant, without throwing (its argument is the occurrence's epoch ms).",
        error,
      );
    }
  }

  #badEntries(reason: string): TaskDeclarationInvalidError {
    return new TaskDeclarationInvalidError(this.#name.value, 'enqueue(occurrenceMs)', reason);
  }
}

/**
 * Declares a recurring task and returns its handle. The zone, the expression (bounded: an impossible date is refused
 * fast), the catch-up policy and `enqueue` are all checked here: a bad declaration fails the build, not the first tick.
 */
export function task(definition: TaskDefinition): TaskHandle {
  if (typeof definition !== 'object' || definition === null) {
    throw new TaskDeclarationInvalidError('anonymous', 'definition', 'must be an object');
  }
  return new TaskHandleImpl(definition);
}

/**
 * Stamps each export name of a module namespace onto the unnamed task handles it exports, and answers those handles.
 * Internal to registration, like `stampExportNames` for jobs.
 */
export function stampTaskExportNames(namespace: Readonly<Record<string, unknown>>): TaskHandle[] {
  const handles: TaskHandle[] = [];
  for (const [exportName, value] of Object.entries(namespace)) {
    if (!isTaskHandle(value)) continue;
    value.stampExportName(exportName);
    if (!handles.includes(value)) handles.push(value);
  }
  return handles;
}
