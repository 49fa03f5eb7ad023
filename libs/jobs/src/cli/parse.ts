import { InvalidArgumentError } from 'commander';
import { FINISHED_STATES, LIVE_STATES, type JobState } from '../driver/job-row';
import { parseDuration } from '../util/duration';

const STATES: readonly string[] = [...LIVE_STATES, ...FINISHED_STATES];

/** `--state`: one of the eight job states (a usage error, exit 2, otherwise). */
export function parseState(value: string): JobState {
  if (!STATES.includes(value)) {
    throw new InvalidArgumentError(`not a job state; one of ${STATES.join(', ')}.`);
  }
  return value as JobState;
}

/** A whole number of at least 1. */
export function parsePositive(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('not a whole number of at least 1.');
  }
  return n;
}

/** `parsePositive`, and at most `max`: a page past what the store answers is a usage error (exit 2), not a store's. */
export function parseAtMost(max: number): (value: string) => number {
  return (value) => {
    const n = parsePositive(value);
    if (n > max) throw new InvalidArgumentError(`at most ${max}.`);
    return n;
  };
}

/** A duration such as `15m`, `24h`, `7d` (or a number of ms), as ms. */
export function parseSpan(value: string): number {
  const ms = parseDuration(/^\d+$/.test(value) ? Number(value) : (value as `${number}h`));
  if (ms === undefined || ms < 0)
    throw new InvalidArgumentError('not a duration such as 15m, 24h or 7d.');
  return ms;
}

/** An instant: ISO 8601 or epoch ms, as epoch ms. */
export function parseInstant(value: string): number {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) throw new InvalidArgumentError('not an ISO 8601 instant or epoch ms.');
  return ms;
}
