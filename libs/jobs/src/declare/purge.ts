import type { PurgeTarget } from '../driver/retention';
import { JobDeclarationInvalidError } from '../errors/declaration-errors';
import { InvariantError } from '../errors/runtime-errors';
import { t } from '../schema/t';
import { systemClock, type Clock } from '../util/clock';
import { MAX_STEP_NAME_LENGTH } from '../values/bounds';
import { identifierProblem } from '../values/text';
import { job } from './job';
import type { RetryPolicy } from './retry-policy';
import type { StepApi } from './run-args';

/** Hourly, at a minute no human picks, so sweeps of many apps do not all start on the hour. */
export const DEFAULT_PURGE_CRON = '23 * * * *';

/** The name `eventsPurgeTarget()` answers, for the stored event bus (`x_job_events`). */
export const EVENTS_PURGE_TARGET = 'x_job_events';

/** A sweep over the targets `purge()` declares. */
export interface PurgeDefinition {
  /** The job's durable name. */
  readonly name: string;
  /**
   * The tables to sweep, read once per ATTEMPT and never captured at declaration: a host declares the sweep at boot,
   * and some stores behind it are built later. Two targets under one name are `X_INVARIANT` before the first delete.
   */
  readonly targets: () => readonly PurgeTarget[];
  /** The queue the sweep runs on. Default the job default. */
  readonly queue?: string;
  /** Where the sweep reads its one time per pass. Default the system clock. */
  readonly clock?: Clock;
  /** Default the job default. */
  readonly retry?: RetryPolicy;
}

/** What a sweep answers: the time it purged against, and the rows each target removed. */
export interface PurgeResult {
  /** The one clock reading (epoch ms) every target purged against. */
  readonly nowMs: number;
  /** The rows each target removed, by target name. */
  readonly removed: Readonly<Record<string, number>>;
}

/** The step that sweeps the target named `name`. */
const stepOf = (name: string): string => `purge:${name}`;

/** `targets` checked: an array of named targets, no name twice. */
function checkedTargets(sweep: string, targets: unknown): readonly PurgeTarget[] {
  if (!Array.isArray(targets)) {
    throw new InvariantError(`purge "${sweep}": targets() must answer an array of PurgeTarget.`);
  }
  const seen = new Set<string>();
  for (const target of targets as readonly Partial<PurgeTarget>[]) {
    const name = target?.name;
    if (
      typeof name !== 'string' ||
      name.length === 0 ||
      typeof target.purgeExpired !== 'function'
    ) {
      throw new InvariantError(
        `purge "${sweep}": every target needs a non-empty name and a purgeExpired(nowMs) function.`,
      );
    }
    // checked with the rest, so a name no step can carry never fails the pass after earlier targets were purged
    const problem = identifierProblem(stepOf(name), MAX_STEP_NAME_LENGTH);
    if (problem !== undefined) {
      throw new InvariantError(
        `purge "${sweep}": the step of target "${name.slice(0, 64)}" ${problem}.`,
        `Name each target with at most ${MAX_STEP_NAME_LENGTH - stepOf('').length} characters, no NUL and no lone surrogate.`,
      );
    }
    if (seen.has(name)) {
      throw new InvariantError(
        `purge "${sweep}": two targets are named "${name}".`,
        'Give each target its own name: it names the step that sweeps it.',
      );
    }
    seen.add(name);
  }
  return targets as readonly PurgeTarget[];
}

/**
 * Declares a retention sweep: a job whose one run reads the clock ONCE (a durable step, so a resumed attempt purges
 * against the same instant) and then empties each target in a step of its own, so a killed attempt resumes at the
 * table it stopped on. Each target is handed that one reading, never its own clock. A replayed delete removes rows
 * already gone, so at-least-once is safe here. Enqueue it from a task (`cron: DEFAULT_PURGE_CRON`).
 */
export function purge(definition: PurgeDefinition) {
  if (typeof definition?.targets !== 'function') {
    throw new JobDeclarationInvalidError(
      String(definition?.name ?? 'anonymous'),
      'targets',
      'must be a function answering the PurgeTarget list',
    );
  }
  const clock = definition.clock ?? systemClock;
  return job({
    name: definition.name,
    input: t.object({}),
    idempotencyKey: () => 'sweep',
    tenant: 'none',
    ...(definition.queue === undefined ? {} : { queue: definition.queue }),
    ...(definition.retry === undefined ? {} : { retry: definition.retry }),
    run: ({ step }) => purgePass(definition.name, definition.targets(), clock, step),
  });
}

/**
 * One pass of a sweep named `sweep` over `targets` — what a `purge()` job runs: the targets checked (two under one
 * name are `X_INVARIANT` before any delete), the clock read once in a durable step, then one step per target. Also the
 * body `JobsModule` binds to its own sweep in each app, over that app's driver.
 */
export async function purgePass(
  sweep: string,
  targets: unknown,
  clock: Clock,
  step: StepApi,
): Promise<PurgeResult> {
  const checked = checkedTargets(sweep, targets);
  const nowMs = await step.run('clock', () => clock.now());
  const removed: Record<string, number> = {};
  for (const target of checked) {
    removed[target.name] = await step.run(stepOf(target.name), () => target.purgeExpired(nowMs));
  }
  return { nowMs, removed };
}

/** The stored event bus as a purge target: `purgeExpired()` of the bus, which reads the database's clock. */
export function eventsPurgeTarget(bus: { purgeExpired(): Promise<number> }): PurgeTarget {
  return { name: EVENTS_PURGE_TARGET, purgeExpired: () => bus.purgeExpired() };
}
