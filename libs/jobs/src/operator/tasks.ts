import type { CatchUpPolicy } from '../declare/task';
import type { JobDriver } from '../driver/job-driver';
import { TaskNotFoundError } from '../errors/operator-errors';
import { ValueInvalidError } from '../errors/value-errors';
import { compileCron } from '../scheduler/cron-schedule';
import { systemClock, type Clock } from '../util/clock';
import type { OperatorDeclarations } from './declarations';
import { assertTaskName } from '../values/operator';
import { integerProblem } from '../values/scalars';
import { introspectionOf } from './operator-driver';

/** One task as operators read it: its declaration (when known), pause flag, last fire and next run. */
export interface TaskView {
  /** The task name. */
  readonly name: string;
  /** Whether the app's declarations name it; a task only the backend remembers (fired or paused) is `false`. */
  readonly declared: boolean;
  /** The declared cron expression; null when undeclared. */
  readonly cron: string | null;
  /** The IANA zone the cron is read in; null when undeclared. */
  readonly tz: string | null;
  /** The declared catch-up policy; null when undeclared. */
  readonly catchUp: CatchUpPolicy | null;
  /** The job names one occurrence enqueues (empty when undeclared). */
  readonly jobs: readonly string[];
  /** A paused task is not dispatched; on resume its own `catchUp` decides what it missed. */
  readonly paused: boolean;
  /** The last occurrence that dispatched, and when it landed (epoch ms); null when it never fired. */
  readonly lastFire: { readonly occurrenceMs: number; readonly firedAt: number } | null;
  /** The next occurrence after the clock's now (epoch ms), by the scheduler's own resolver; null when undeclared. */
  readonly next: number | null;
}

/** A task's pause state after `pauseTask` / `resumeTask`. */
export interface TaskPauseView {
  /** The task name. */
  readonly task: string;
  /** Whether it is paused now. */
  readonly paused: boolean;
}

/** Options of {@link inspectTasks}. */
export interface InspectTasksOptions {
  /** The app's declarations (the cron, zone and jobs of each task). Without them only what the backend holds is known. */
  readonly declarations?: OperatorDeclarations;
  /** Where "next" is counted from (default: the system clock). */
  readonly clock?: Clock;
}

/**
 * Every task the app declares or the backend remembers (a fire or a pause), by name, with its pause flag, last
 * dispatched occurrence and next occurrence. Reads the driver's operator surface: `X_NOT_IMPLEMENTED` without one.
 */
export async function inspectTasks(
  driver: JobDriver,
  options: InspectTasksOptions = {},
): Promise<readonly TaskView[]> {
  const introspect = introspectionOf(driver, 'inspectTasks');
  const [paused, fires] = await Promise.all([introspect.pausedTasks(), introspect.taskFires()]);
  const nowMs = (options.clock ?? systemClock).now();
  const declared = options.declarations?.tasks ?? [];
  const names = new Set([...declared.map((t) => t.name), ...fires.map((f) => f.task), ...paused]);
  return [...names].sort().map((name): TaskView => {
    const d = declared.find((t) => t.name === name);
    const fire = fires.find((f) => f.task === name);
    return {
      name,
      declared: d !== undefined,
      cron: d?.cron ?? null,
      tz: d?.tz ?? null,
      catchUp: d?.catchUp ?? null,
      jobs: d?.jobs ?? [],
      paused: paused.includes(name),
      lastFire:
        fire === undefined ? null : { occurrenceMs: fire.occurrenceMs, firedAt: fire.firedAt },
      next: d === undefined ? null : (compileCron(name, d.cron, d.tz, nowMs).next(nowMs) ?? null),
    };
  });
}

/** One task by name, or `X_TASK_NOT_FOUND` when neither the declarations nor the backend know it. */
export async function inspectTask(
  driver: JobDriver,
  name: string,
  options: InspectTasksOptions = {},
): Promise<TaskView> {
  const found = (await inspectTasks(driver, options)).find((t) => t.name === name);
  if (found === undefined) throw new TaskNotFoundError(name);
  return found;
}

/**
 * The most occurrences {@link nextTaskRuns} answers (`x tasks next --count`): each is resolved synchronously, on the
 * event loop of the process asking.
 */
export const MAX_NEXT_TASK_RUNS = 100;

/**
 * The next `count` occurrences (default 1, at most {@link MAX_NEXT_TASK_RUNS}) of a declared task after the clock's
 * now, by the scheduler's own resolver — no scheduler needed. A task the declarations do not name is
 * `X_TASK_NOT_FOUND`; a `count` that is not a whole number in that range is `X_VALUE_INVALID`.
 */
export function nextTaskRuns(
  declarations: OperatorDeclarations,
  name: string,
  options: { readonly count?: number; readonly clock?: Clock } = {},
): readonly number[] {
  const count = options.count ?? 1;
  const problem = integerProblem(count, 1, MAX_NEXT_TASK_RUNS);
  if (problem !== undefined) throw new ValueInvalidError('nextTaskRuns(options).count', problem);
  const d = declarations.tasks.find((t) => t.name === name);
  if (d === undefined) {
    throw new TaskNotFoundError(
      name,
      'Pass the app declaring it (x tasks next <name> --app <module>) or its manifest (--manifest x.manifest.json); x tasks list with either lists the names.',
    );
  }
  const nowMs = (options.clock ?? systemClock).now();
  const schedule = compileCron(name, d.cron, d.tz, nowMs);
  const runs: number[] = [];
  let from = nowMs;
  for (let i = 0; i < count; i += 1) {
    const next = schedule.next(from);
    if (next === undefined) break;
    runs.push(next);
    from = next;
  }
  return runs;
}

/** Options of {@link pauseTask} and {@link resumeTask}. */
export interface TaskPauseOptions {
  /**
   * The app's declarations (an {@link OperatorDeclarations}, or only its tasks' names): a task they declare is known
   * though it has never fired nor been paused.
   */
  readonly declarations?: { readonly tasks: readonly { readonly name: string }[] };
  /**
   * Pause or resume the name even when nothing knows it — not declared (in the declarations given) and not remembered
   * by the backend: a task of a release not yet deployed, paused ahead of its first occurrence. Default false.
   */
  readonly force?: boolean;
}

/**
 * `X_TASK_NOT_FOUND` unless `task` is known: declared in `options.declarations`, or remembered by the backend (it
 * fired, or it is paused), or `options.force`. A mistyped name would otherwise be paused (or resumed) in silence while
 * the task meant goes on as it was.
 */
async function assertKnownTask(
  driver: JobDriver,
  task: string,
  options: TaskPauseOptions,
  verb: 'pauseTask' | 'resumeTask',
): Promise<void> {
  assertTaskName(verb, task); // a name no backend could hold is X_VALUE_INVALID, before any read
  const introspect = introspectionOf(driver, verb); // no operator surface: X_NOT_IMPLEMENTED, whatever the name
  if (options.force === true) return;
  if (options.declarations?.tasks.some((t) => t.name === task)) return;
  const [paused, fires] = await Promise.all([introspect.pausedTasks(), introspect.taskFires()]);
  if (paused.includes(task) || fires.some((f) => f.task === task)) return;
  throw new TaskNotFoundError(
    task,
    'Check the name with x tasks list --app <module> (or --manifest x.manifest.json); a task that has neither fired nor been paused is known only from its app: pass --app, or --force to pause a name nothing knows yet.',
  );
}

/**
 * Pauses a task: the scheduler leader dispatches none of its occurrences until it is resumed. Idempotent. A name
 * nothing knows is `X_TASK_NOT_FOUND` (see {@link TaskPauseOptions}).
 */
export async function pauseTask(
  driver: JobDriver,
  task: string,
  options: TaskPauseOptions = {},
): Promise<TaskPauseView> {
  await assertKnownTask(driver, task, options, 'pauseTask');
  await introspectionOf(driver, 'pauseTask').pauseTask(task);
  return { task, paused: true };
}

/**
 * Resumes a paused task; its own `catchUp` decides what it missed. Idempotent for a known task; a name nothing knows
 * is `X_TASK_NOT_FOUND`, as {@link pauseTask}.
 */
export async function resumeTask(
  driver: JobDriver,
  task: string,
  options: TaskPauseOptions = {},
): Promise<TaskPauseView> {
  await assertKnownTask(driver, task, options, 'resumeTask');
  await introspectionOf(driver, 'resumeTask').resumeTask(task);
  return { task, paused: false };
}
