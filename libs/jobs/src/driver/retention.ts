import { InvariantError } from '../errors/runtime-errors';

/**
 * One table (or store) a retention sweep empties of expired rows. Structural on purpose: the stores that need sweeping
 * live in packages this one must not import, so anything with a name and a `purgeExpired(nowMs)` is a target.
 */
export interface PurgeTarget {
  /** Unique within one sweep: it names the sweep's step, so a killed attempt resumes at this table. */
  readonly name: string;
  /**
   * Removes the rows expired at `nowMs` (the sweep's one clock reading) and answers how many it removed. Called at
   * least once per pass: a replayed call removes rows already gone, so it must be safe to repeat.
   */
  purgeExpired(nowMs: number): Promise<number>;
}

/** How long the package's own tables keep what they no longer need. */
export interface RetentionPolicy {
  /** How long a done, failed or cancelled job (with its steps) and a published outbox row are kept. Default 7 days. */
  readonly finishedMs?: number;
  /** How long a dead job (the dead-letter queue) is kept. Default 30 days. */
  readonly deadMs?: number;
  /** Rows one purge statement removes at most: a whole number of at least 1. Default 1,000. */
  readonly batchSize?: number;
}

/** {@link RetentionPolicy} with every default filled in. */
export interface ResolvedRetention {
  /** How long a done, failed or cancelled job and a published outbox row are kept, ms. */
  readonly finishedMs: number;
  /** How long a dead job is kept, ms. */
  readonly deadMs: number;
  /** Rows one purge statement removes at most. */
  readonly batchSize: number;
}

const DAY = 24 * 3_600_000;

/** The default retention of a done, failed or cancelled job: 7 days. */
export const DEFAULT_FINISHED_RETENTION_MS = 7 * DAY;
/** The default retention of a dead job: 30 days. */
export const DEFAULT_DEAD_RETENTION_MS = 30 * DAY;
/** The default size of one purge batch. */
export const DEFAULT_PURGE_BATCH = 1_000;

/** A retention option that is not a positive finite number. */
class RetentionInvalidError extends InvariantError {
  constructor(field: string, value: unknown, rule = 'a positive finite number') {
    super(
      `retention.${field} must be ${rule} (got ${String(value)}).`,
      'Pass milliseconds, e.g. retention: { finishedMs: 7 * 24 * 3_600_000 }, or retention: false for no sweep.',
    );
  }
}

/** `value` when it is a whole number (the rows one purge statement removes); else refused. */
function wholeBatch(value: number): number {
  if (!Number.isInteger(value)) {
    throw new RetentionInvalidError('batchSize', value, 'a whole number of at least 1');
  }
  return value;
}

/**
 * The policy with defaults filled in; a duration that is not a positive finite number is refused, and so is a batch
 * that is not a whole number of at least 1 (a batch of 0.5 floored to 0 rows: each purge loop stops at a short batch,
 * and a batch of 0 is never short, so it never stopped).
 */
export function resolveRetention(policy: RetentionPolicy = {}): ResolvedRetention {
  const check = (
    field: keyof RetentionPolicy,
    value: number | undefined,
    fallback: number,
  ): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new RetentionInvalidError(field, value);
    }
    return value;
  };
  return {
    finishedMs: check('finishedMs', policy.finishedMs, DEFAULT_FINISHED_RETENTION_MS),
    deadMs: check('deadMs', policy.deadMs, DEFAULT_DEAD_RETENTION_MS),
    batchSize: wholeBatch(check('batchSize', policy.batchSize, DEFAULT_PURGE_BATCH)),
  };
}
