import type { CatchUpPolicy } from '../declare/task';
import type { JobDriver } from '../driver/job-driver';
import { InvariantError } from '../errors/runtime-errors';
import { compileCron } from '../scheduler/cron-schedule';
import { systemClock, type Clock } from '../util/clock';
import type { OperatorDeclarations } from './declarations';
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

/** One task by name, or `X_INVARIANT` naming the fix when neither the declarations nor the backend know it. */
export async function inspectTask(
  driver: JobDriver,
  name: string,
  options: InspectTasksOptions = {},
): Promise<TaskView> {
  const found = (await inspectTasks(driver, options)).find((t) => t.name === name);
  if (found === undefined) {
    throw new InvariantError(
      `No task named "${name}" is declared (in the declarations given) or remembered by the backend.`,
      'List tasks with x tasks list --app <module> (or --manifest x.manifest.json) to see the names.',
    );
  }
  return found;
}

/**
 * The next `count` occurrences of a declared task after the clock's now, by the scheduler's own resolver — no
 * scheduler needed. A task the declarations do not name is refused like {@link inspectTask}.
 */
export function nextTaskRuns(
  declarations: OperatorDeclarations,
  name: string,
  options: { readonly count?: number; readonly clock?: Clock } = {},
): readonly number[] {
  const d = declarations.tasks.find((t) => t.name === name);
  if (d === undefined) {
    throw new InvariantError(
      `No declared task named "${name}".`,
      'Pass the app declaring it (x tasks next <name> --app <module>) or its manifest (--manifest x.manifest.json).',
    );
  }
  const nowMs = (options.clock ?? systemClock).now();
  const schedule = compileCron(name, d.cron, d.tz, nowMs);
  const runs: number[] = [];
  let from = nowMs;
  for (let i = 0; i < (options.count ?? 1); i += 1) {
    const next = schedule.next(from);
    if (next === undefined) break;
    runs.push(next);
    from = next;
  }
  return runs;
}

/** Pauses a task: the scheduler leader dispatches none of its occurrences until it is resumed. Idempotent. */
export async function pauseTask(driver: JobDriver, task: string): Promise<TaskPauseView> {
  await introspectionOf(driver, 'pauseTask').pauseTask(task);
  return { task, paused: true };
}

/** Resumes a paused task; its own `catchUp` decides what it missed. Idempotent. */
export async function resumeTask(driver: JobDriver, task: string): Promise<TaskPauseView> {
  await introspectionOf(driver, 'resumeTask').resumeTask(task);
  return { task, paused: false };
}
