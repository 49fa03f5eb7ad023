/**
 * The jobs of scenario 7. Every body records what it saw into the ground truth (`effect` rows, the step naming what),
 * so the spec knows which good jobs ran and whether a NUL-bearing input reached its body unchanged.
 */
import { job, t, type StandardSchemaV1 } from '@ultimat3/jobs';
import type { TruthWriter } from '../../harness/ground-truth';

/** The queue every job of the scenario is on: bad rows sit beside the good ones. */
export const QUEUE = 'bad-input';

/** Any JSON the caller passes, unchanged: the core's JSON checks (not a schema) must answer a bad value. */
export const anyJson: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'chaos', validate: (value: unknown) => ({ value }) },
};

/** The value a NUL-bearing input must reach its body as (keyed by `n`): NUL in a string, in a key, nested. */
export function nulValue(n: number): Record<string, unknown> {
  return { n, s: `a\u0000b${n}`, ['k\u0000' + n]: ['\u0000', { '\u0000': `\u0000${n}\u0000` }] };
}

let truth: TruthWriter | undefined;
/** Where the bodies record (set once by the process before its worker starts). */
export function recordInto(writer: TruthWriter): void {
  truth = writer;
}
const record = (jobId: string, attempt: number, what: string): Promise<void> =>
  truth?.record({ kind: 'effect', jobId, attempt, step: what }) ?? Promise.resolve();

/** The good job enqueued alongside the bad input: each run records `good`. */
export const goodJob = job({
  name: 'chaos.good',
  queue: QUEUE,
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `good:${n}`,
  tenant: 'none',
  run: ({ jobId, attempt }) => record(jobId, attempt, 'good'),
});

/** A job taking any JSON: records whether its input is exactly {@link nulValue} of its `n`. */
export const echoJob = job({
  name: 'chaos.echo',
  queue: QUEUE,
  input: anyJson,
  idempotencyKey: (input) => `echo:${String((input as { n?: unknown }).n)}`,
  tenant: 'none',
  run: ({ input, jobId, attempt }) => {
    const n = (input as { n: number }).n;
    const intact = JSON.stringify(input) === JSON.stringify(nulValue(n));
    return record(jobId, attempt, intact ? 'intact' : 'changed');
  },
});

/** The job whose stored input the spec corrupts: two quick attempts, so a refused input is buried within the run. */
export const fragileJob = job({
  name: 'chaos.fragile',
  queue: QUEUE,
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `fragile:${n}`,
  tenant: 'none',
  retry: { attempts: 2, backoff: 'fixed', delay: 200, jitter: false },
  run: ({ jobId, attempt }) => record(jobId, attempt, 'fragile ran'),
});

/** A job that sleeps 40 days (past setTimeout's 2^31 - 1 ms): suspended, never resumed within the run. */
export const sleeperJob = job({
  name: 'chaos.sleeper',
  queue: QUEUE,
  input: t.object({ n: t.number.int() }),
  idempotencyKey: ({ n }) => `sleeper:${n}`,
  tenant: 'none',
  run: async ({ step, jobId, attempt }) => {
    await step.sleep('nap', '40d');
    await record(jobId, attempt, 'woke early');
  },
});
