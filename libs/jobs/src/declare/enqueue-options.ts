import { EnqueueOptionsInvalidError } from '../errors/declaration-errors';
import { DURATION_FORMS, describeDurationValue, parseDuration } from '../util/duration';
import { isUuid } from '../util/ids';
import {
  MAX_ACTOR_LENGTH,
  MAX_DURATION_MS,
  MAX_PRIORITY,
  MAX_TENANT_LENGTH,
  MIN_PRIORITY,
} from '../values/bounds';
import { integerProblem, timeProblem } from '../values/scalars';
import { identifierProblem } from '../values/text';
import type { EnqueueActor, EnqueueOptions } from './handle';
import { assertName, MAX_QUEUE_NAME_LENGTH } from './names';

/** The options of one enqueue, checked once and shared by every row of a batch. */
export interface ResolvedOptions {
  /** The run every row is named by, or undefined: each row mints its own. */
  readonly runId: string | undefined;
  /** The queue option, or undefined for the declared one. */
  readonly queue: string | undefined;
  readonly runAt: number;
  /** The priority option, or undefined for the declared one. */
  readonly priority: number | undefined;
  readonly onConflict: 'dedupe' | 'error';
}

/**
 * The options of an enqueue given none (`handle.enqueue(input)`): one frozen object, which {@link resolveOptions}
 * resolves without reading a field.
 */
export const NO_OPTIONS: EnqueueOptions = Object.freeze({});

const optionsInvalid = (job: string, field: string, reason: string): Error =>
  new EnqueueOptionsInvalidError(job, field, reason);

/**
 * Checks the options of an enqueue before any input is looked at: each bad option is `X_JOB_OPTIONS_INVALID` naming
 * the field. A `runId` must be a UUID — it is stored in a `uuid` column, and a stray string used to surface as the
 * database's own cast error after the input had been parsed.
 */
export function resolveOptions(
  job: string,
  options: EnqueueOptions,
  nowMs: number,
): ResolvedOptions {
  if (options === NO_OPTIONS) {
    return {
      runId: undefined,
      queue: undefined,
      runAt: nowMs,
      priority: undefined,
      onConflict: 'dedupe',
    };
  }
  const { runId, priority, onConflict, queue } = options;
  if (runId !== undefined && (typeof runId !== 'string' || !isUuid(runId))) {
    const got = typeof runId === 'string' ? `"${runId.slice(0, 64)}"` : typeof runId;
    throw optionsInvalid(job, 'options.runId', `must be a UUID (got ${got})`);
  }
  const badPriority =
    priority === undefined ? undefined : integerProblem(priority, MIN_PRIORITY, MAX_PRIORITY);
  if (badPriority !== undefined) throw optionsInvalid(job, 'options.priority', badPriority);
  if (onConflict !== undefined && onConflict !== 'dedupe' && onConflict !== 'error') {
    throw optionsInvalid(
      job,
      'options.onConflict',
      `must be 'dedupe' or 'error' (got ${String(onConflict)})`,
    );
  }
  return {
    // lower case: the form every driver stores and reads back
    runId: runId?.toLowerCase(),
    queue:
      queue === undefined
        ? undefined
        : assertName(job, 'options.queue', queue, MAX_QUEUE_NAME_LENGTH, optionsInvalid),
    runAt: resolveRunAt(job, options, nowMs),
    priority,
    onConflict: onConflict ?? 'dedupe',
  };
}

/**
 * When the row is due: `runAt`, `delay` from now, or now — whole milliseconds (a fractional `runAt` or `delay` is
 * rounded, as `'1.5ms'` is) within years 0001–9999, the times every driver stores. A `delay` is at most 100 years.
 */
function resolveRunAt(job: string, options: EnqueueOptions, nowMs: number): number {
  if (options.runAt !== undefined && options.delay !== undefined) {
    throw optionsInvalid(job, 'options', 'takes runAt or delay, not both');
  }
  if (options.runAt !== undefined) {
    const at = options.runAt instanceof Date ? options.runAt.getTime() : options.runAt;
    if (typeof at !== 'number' || !Number.isFinite(at))
      throw optionsInvalid(job, 'options.runAt', 'must be a valid Date or epoch ms');
    return withinTimes(job, 'options.runAt', Math.round(at));
  }
  if (options.delay !== undefined) {
    const ms = parseDuration(options.delay);
    if (ms === undefined) {
      throw optionsInvalid(
        job,
        'options.delay',
        `${describeDurationValue(options.delay)} is not a duration: pass ${DURATION_FORMS}`,
      );
    }
    if (ms > MAX_DURATION_MS) {
      throw optionsInvalid(
        job,
        'options.delay',
        `is ${ms} ms, over the ${MAX_DURATION_MS} ms (100 years) allowed`,
      );
    }
    return withinTimes(job, 'options.delay', Math.round(nowMs + ms));
  }
  return nowMs;
}

function withinTimes(job: string, field: string, at: number): number {
  const problem = timeProblem(at);
  if (problem !== undefined)
    throw optionsInvalid(job, field, `puts the run time at ${at}, which ${problem}`);
  return at;
}

/**
 * Checks the actor of `handle.as(actor, …)`: its id (recorded as `enqueuedBy`) and its org (the row's tenant when the
 * declaration derives none) follow the identifier rule, or the enqueue is `X_JOB_OPTIONS_INVALID` naming the field.
 */
export function assertActor(job: string, actor: EnqueueActor | undefined): void {
  if (actor === undefined) return;
  if (typeof actor !== 'object' || actor === null) {
    throw optionsInvalid(job, 'actor', 'must be an object { id?, orgId? }');
  }
  const fields: [string, unknown, number][] = [
    ['actor.id', actor.id, MAX_ACTOR_LENGTH],
    ['actor.orgId', actor.orgId, MAX_TENANT_LENGTH],
  ];
  for (const [field, value, max] of fields) {
    if (value === undefined || value === null || value === '') continue; // '': none, as null
    const problem = identifierProblem(value, max);
    if (problem !== undefined) throw optionsInvalid(job, field, problem);
  }
}
