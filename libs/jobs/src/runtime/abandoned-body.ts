import { errorCodeOf } from '../errors/jobs-error';
import type { JobsLogger } from '../util/logger';
import type { RunAbort } from './run-abort';

/**
 * A body the attempt stopped waiting for still runs. When it finally ends without having unwound on the signal —
 * it returned, or threw something other than the abort — it is a handler that never reads `ctx.signal`: report it
 * (`jobs.timeout.abandoned`, caused by the `timeout` or a `lease-lost`).
 */
export function watchAbandoned(
  body: Promise<unknown>,
  signal: RunAbort,
  logger: JobsLogger,
  base: Readonly<Record<string, unknown>>,
  deadline: boolean,
): void {
  const report = (): void =>
    logger.log('warn', 'jobs.timeout.abandoned', {
      ...base,
      cause: deadline ? 'timeout' : 'lease-lost',
    });
  body.then(report, (error: unknown) => {
    // unwound on the run's signal, or on its hard signal (the stop that came after a drain)
    if (
      error !== signal.reason &&
      error !== signal.hardReason &&
      errorCodeOf(error) !== 'X_ABORTED'
    )
      report();
  });
}
