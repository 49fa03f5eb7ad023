import { EnqueueOptionsInvalidError } from '../errors/declaration-errors';
import { DURATION_FORMS, describeDurationValue, parseDuration } from '../util/duration';
import { isUuid } from '../util/ids';
import type { EnqueueOptions } from './handle';
import { assertName, MAX_QUEUE_NAME_LENGTH } from './names';

/** The largest priority an enqueue may set either way: the column is a 32-bit integer. */
const MAX_PRIORITY = 2_147_483_647;

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
  const { runId, priority, onConflict, queue } = options;
  if (runId !== undefined && (typeof runId !== 'string' || !isUuid(runId))) {
    const got = typeof runId === 'string' ? `"${runId.slice(0, 64)}"` : typeof runId;
    throw optionsInvalid(job, 'options.runId', `must be a UUID (got ${got})`);
  }
  if (
    priority !== undefined &&
    (!Number.isInteger(priority) || Math.abs(priority) > MAX_PRIORITY)
  ) {
    throw optionsInvalid(
      job,
      'options.priority',
      `must be a whole number between -${MAX_PRIORITY} and ${MAX_PRIORITY} (got ${String(priority)})`,
    );
  }
  if (onConflict !== undefined && onConflict !== 'dedupe' && onConflict !== 'error') {
    throw optionsInvalid(
      job,
      'options.onConflict',
      `must be 'dedupe' or 'error' (got ${String(onConflict)})`,
    );
  }
  return {
    runId,
    queue:
      queue === undefined
        ? undefined
        : assertName(job, 'options.queue', queue, MAX_QUEUE_NAME_LENGTH, optionsInvalid),
    runAt: resolveRunAt(job, options, nowMs),
    priority,
    onConflict: onConflict ?? 'dedupe',
  };
}

/** When the row is due: `runAt`, `delay` from now, or now. */
function resolveRunAt(job: string, options: EnqueueOptions, nowMs: number): number {
  if (options.runAt !== undefined && options.delay !== undefined) {
    throw optionsInvalid(job, 'options', 'takes runAt or delay, not both');
  }
  if (options.runAt !== undefined) {
    const at = options.runAt instanceof Date ? options.runAt.getTime() : options.runAt;
    if (!Number.isFinite(at))
      throw optionsInvalid(job, 'options.runAt', 'must be a valid Date or epoch ms');
    return at;
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
    return nowMs + ms;
  }
  return nowMs;
}
