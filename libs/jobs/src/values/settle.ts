import { nackRunAt, type NackOptions } from '../driver/nack';
import { ValueInvalidError } from '../errors/value-errors';
import { MAX_DURATION_MS } from './bounds';
import { timeProblem } from './scalars';
import { describeValue } from './text';

/**
 * A run's duration as every driver counts it: whole ms from 0 to {@link MAX_DURATION_MS}, rounded; none, NaN or
 * ±Infinity count as 0. A duration past the bound is counted as the bound: a counter column is a 64-bit integer, and
 * one run's `1e20` used to fail PostgreSQL's write with a raw 22003 and Redis's script with a raw error.
 */
export function storableDuration(ms: number | undefined): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return 0;
  return Math.min(MAX_DURATION_MS, Math.max(0, Math.round(ms)));
}

/**
 * The whole epoch ms a nack's run time is stored as: its fraction dropped toward zero, as `new Date(ms)` drops it (so
 * `-0` and `-0.5` are 0). One driver used to decide the state on the fraction and store the whole ms, so a run time
 * half a millisecond ahead made a row `delayed` there and `ready` on the others.
 */
const wholeMs = (ms: number): number => Math.trunc(ms) + 0;

/**
 * `options` as every driver stores it, or `X_VALUE_INVALID` naming `nack.runAt` or `nack.error`: a run time must be a
 * number that is, once its fraction is dropped, a time every driver stores (years 0001–9999, see `timeProblem`) —
 * NaN, ±Infinity, a time past year 9999 or a string used to be refused by one driver, refused with a raw error by
 * another and stored as a row no claim reaches by the third; the error must be a string or null. The answer carries
 * the run time as whole ms and the duration as {@link storableDuration} counts it. Each driver's `nack` calls it at
 * its door, before it reads the claim, so all three answer alike.
 */
export function storableNack(options: NackOptions): NackOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ValueInvalidError('nack', `must be an object (got ${describeValue(options)})`);
  }
  if (options.error !== null && typeof options.error !== 'string') {
    throw new ValueInvalidError(
      'nack.error',
      `must be a string or null (got ${describeValue(options.error)})`,
    );
  }
  const runAt = nackRunAt(options);
  const durationMs = storableDuration(options.durationMs);
  if (runAt === undefined) return { ...options, durationMs };
  if (typeof runAt !== 'number') {
    throw new ValueInvalidError('nack.runAt', `must be epoch ms (got ${describeValue(runAt)})`);
  }
  const whole = Number.isFinite(runAt) ? wholeMs(runAt) : runAt;
  const problem = timeProblem(whole);
  if (problem !== undefined) throw new ValueInvalidError('nack.runAt', problem);
  return { ...options, runAt: whole, durationMs } as NackOptions;
}
