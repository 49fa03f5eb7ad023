/**
 * Scenario 2's job, shared by the spec and the worker entry. One durable step `first`, then a tail outside any step;
 * the input's `hold` says where a run sits — inside the step (`step`: its write comes after the hold) or in the tail
 * (`tail`: its settle comes after the hold). The first attempt (worker A's) holds `holdMs` of real time, so a worker
 * SIGSTOPped during the hold resumes straight into that write. A later attempt (the takeover, worker B's) holds at
 * the same point until the ground truth shows the earlier attempt's write there answered: B's run still holds the row
 * when A's write reaches the driver, so only the claim fence can refuse it — not a state the row already left.
 */
import type { Pool } from 'pg';
import { job, t, uuidv7, type EnqueueRequest, type JobRegistry } from '@ultimat3/jobs';
import { tellSpec } from '../../harness/child';
import type { TruthKind, TruthWriter } from '../../harness/ground-truth';
import { chaosRequest } from '../../harness/requests';

export const QUEUE = 'chaos-sigstop';
export const JOB = 'chaos.sigstop';
export const STEP = 'first';
/** The tail's side effect, recorded as `effect`. */
export const TAIL = 'tail';

/** Where a run holds: inside its step, or in its tail. */
export type Hold = 'step' | 'tail';

/** The request for one job holding at `hold` (its first attempt for `holdMs`). */
export function sigstopRequest(hold: Hold, holdMs: number): EnqueueRequest {
  const key = `${hold}:${uuidv7()}`;
  return chaosRequest({
    name: JOB,
    queue: QUEUE,
    input: { hold, holdMs, key },
    idempotencyKey: key,
    maxAttempts: 5,
  });
}

/**
 * Resolves once the ground truth holds an answered write of one of `kinds` to `jobId` by an attempt before `attempt`
 * (the recording driver records a write once the driver answered it); rejects after `timeoutMs`.
 */
export type AwaitEarlierWrite = (
  jobId: string,
  attempt: number,
  kinds: readonly TruthKind[],
) => Promise<void>;

const EARLIER_WRITE = `
select exists (
  select 1 from chaos_truth
   where run = $1 and job_id = $2 and kind = any($3::text[]) and attempt < $4
) as found`;

/** An {@link AwaitEarlierWrite} polling run `run`'s ground truth through `pool` every 20 ms. */
export function earlierWriteWatch(pool: Pool, run: string, timeoutMs: number): AwaitEarlierWrite {
  return async (jobId, attempt, kinds) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await pool.query<{ found: boolean }>(EARLIER_WRITE, [
        run,
        jobId,
        kinds,
        attempt,
      ]);
      if (rows[0]?.found === true) return;
      if (Date.now() >= deadline)
        throw new Error(
          `no ${kinds.join('/')} of ${jobId} by an attempt before ${attempt} in ${timeoutMs} ms`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
}

/**
 * Holds for `ms`, after telling the spec it does: the spec freezes the process on that message, so the freeze falls
 * inside the hold with the hold's timer already armed (frozen before its ground-truth write's answer was read, the
 * process would arm the timer only after resuming, behind the lease check it had postponed).
 */
function hold(jobId: string, ms: number): Promise<void> {
  const held = new Promise<void>((resolve) => setTimeout(resolve, ms));
  tellSpec('holding', { jobId });
  return held;
}

/** The write the earlier attempt sends after its hold at `at`: the step's save, or the settle. */
const WRITE_AFTER: Readonly<Record<Hold, readonly TruthKind[]>> = {
  step: ['save'],
  tail: ['ack', 'nack'],
};

/**
 * Registers the job; its step body and its tail record `body` / `effect` rows before they hold. The first attempt
 * holds `holdMs`; a later one tells the spec `outlasting` and holds until `earlierWrite` sees the first attempt's
 * write after that hold answered.
 */
export function registerSigstopJob(
  registry: JobRegistry,
  truth: TruthWriter,
  earlierWrite: AwaitEarlierWrite,
): void {
  const holdAt = (at: Hold, jobId: string, attempt: number, holdMs: number): Promise<void> => {
    if (attempt === 1) return hold(jobId, holdMs);
    const written = earlierWrite(jobId, attempt, WRITE_AFTER[at]);
    tellSpec('outlasting', { jobId });
    return written;
  };
  registry.register(
    job({
      name: JOB,
      queue: QUEUE,
      input: t.object({ hold: t.enum(['step', 'tail']), holdMs: t.number, key: t.string }),
      idempotencyKey: ({ key }) => key,
      tenant: 'none',
      retry: { attempts: 5, backoff: 'fixed', delay: 20, jitter: false },
      run: async ({ input, step, attempt, jobId }) => {
        await step.run(STEP, async () => {
          await truth.record({ kind: 'body', jobId, attempt, step: STEP });
          if (input.hold === 'step') await holdAt('step', jobId, attempt, input.holdMs);
          return attempt;
        });
        await truth.record({ kind: 'effect', jobId, attempt, step: TAIL });
        if (input.hold === 'tail') await holdAt('tail', jobId, attempt, input.holdMs);
      },
    }),
  );
}
