import type { JobDriver, StepRecord } from '../driver/job-driver';
import type { JobRow } from '../driver/job-row';
import { JobNotFoundError } from '../errors/operator-errors';
import { failureOf, type JobBackfillView, type JobStepView, type JobView } from './job-views';
import type { OperatorDeclarations } from './declarations';
import { operatorJobId } from '../values/operator';
import { redactJson, scrubJson, scrubText } from './redact';
import { scrubbedSummary, secretsOf } from './scrubbed-summary';

/** Options of {@link inspectJob}. */
export interface InspectJobOptions {
  /** The app's declarations: the job's `redact:` paths are read here. Without them the input is shown as stored. */
  readonly declarations?: OperatorDeclarations;
  /**
   * Include each step's stored output (default false: an output can carry what the input's redaction hides; shown, it
   * has the redacted values scrubbed as the failure has).
   */
  readonly outputs?: boolean;
  /**
   * Reads the backfill ledger row of a run: `(row) => inspectBackfillOfJob(backend.backfills, row.id)` where the
   * backend keeps a ledger (`JobsService` and `x jobs show` pass it). Default: none, and `backfill` is null.
   */
  readonly backfill?: (row: JobRow) => Promise<JobBackfillView> | JobBackfillView;
}

/**
 * Everything about one job: its row, the input redacted by the declaration's `redact:` paths, the failure split into
 * code, message and stack, the last progress, every stored step with its duration, and the backfill ledger row when
 * there is one. An id no queue holds is `X_JOB_NOT_FOUND`. Reads the row and its steps: works on any driver.
 *
 * A secret leaks through what a run wrote as easily as through its input: every value the `redact:` paths reach in
 * the stored input (4 characters or more) is also replaced by `'[redacted]'` wherever it appears in the error text,
 * the progress note and the step outputs shown, in the idempotency and concurrency keys and the cross-tenant reason,
 * and in the input's other fields. Step names are shown as stored: `retryFromStep` is given them back.
 */
export async function inspectJob(
  driver: JobDriver,
  given: string,
  options: InspectJobOptions = {},
): Promise<JobView> {
  const id = operatorJobId(given);
  const row = await driver.get(id);
  if (row === undefined) throw new JobNotFoundError(id);
  const steps = await driver.steps.load(id);
  const paths = options.declarations?.jobs.find((j) => j.name === row.name)?.redact;
  const secrets = secretsOf(row, options.declarations);
  const summary = scrubbedSummary(row, secrets);
  const reason = row.crossTenantReason ?? null;
  return {
    ...summary,
    // the keys and the reason are written from the input as easily as an error text is
    idempotencyKey: scrubText(row.idempotencyKey, secrets),
    enqueuedBy: row.enqueuedBy,
    workerId: row.workerId,
    leaseExpiresAt: row.leaseExpiresAt,
    concurrencyKey: row.concurrencyKey === null ? null : scrubText(row.concurrencyKey, secrets),
    traceparent: row.traceparent,
    crossTenantReason: reason === null ? null : scrubText(reason, secrets),
    // a redacted value copied into another field of the input is scrubbed there too
    input: paths === undefined ? row.input : scrubJson(redactJson(row.input, paths), secrets),
    redacted: paths === undefined ? null : [...paths],
    failure: failureOf(summary.lastError),
    steps: steps.map((s) => stepView(s, row.attempt, options.outputs === true, secrets)),
    backfill: options.backfill === undefined ? null : await options.backfill(row),
  };
}

function stepView(
  step: StepRecord,
  rowAttempt: number,
  outputs: boolean,
  secrets: readonly string[],
): JobStepView {
  const hasOutput = step.output !== undefined;
  return {
    name: step.name,
    attempt: step.attempt,
    startedAt: step.startedAt,
    completedAt: step.completedAt,
    durationMs: Math.max(0, step.completedAt - step.startedAt),
    replays: Math.max(0, rowAttempt - step.attempt),
    hasOutput,
    ...(outputs && step.output !== undefined ? { output: scrubJson(step.output, secrets) } : {}),
  };
}
