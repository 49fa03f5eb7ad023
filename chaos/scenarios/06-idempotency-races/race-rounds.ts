/**
 * The races of scenario 6 as the racer processes run them, and the requests they send. Pure of any process: a
 * racer (`racer.ts`) calls these with the drivers it opened.
 */
import { performance } from 'node:perf_hooks';
import { claimOf, errorCodeOf, uuidv7, type EnqueueRequest, type JobDriver } from '@ultimat3/jobs';
import { chaosRequest } from '../../harness/requests';

/** The job name every race enqueues. */
export const RACE_JOB = 'chaos.race';

/** One enqueue request of the race: its own fresh ids, the shared key. */
export function raceRequest(
  queue: string,
  key: string,
  onConflict: 'dedupe' | 'error',
): EnqueueRequest {
  const now = Date.now();
  return chaosRequest({
    id: uuidv7(now),
    runId: uuidv7(now),
    name: RACE_JOB,
    queue,
    input: { key },
    idempotencyKey: key,
    runAt: now,
    maxAttempts: 3,
    onConflict,
  });
}

/** What one caller of a burst was answered. */
export interface BurstAnswer {
  /** The id the caller minted. */
  readonly requested: string;
  /** The id it was answered (absent on an error). */
  readonly id?: string;
  readonly deduped?: boolean;
  /** The error's code (`X_…`), or `uncoded: <message>` for an error without one. */
  readonly error?: string;
}

/** The code of a thrown error, or a mark that it had none. */
export function codeOf(error: unknown): string {
  return errorCodeOf(error) ?? `uncoded: ${String((error as Error)?.message ?? error)}`;
}

/** Waits until the wall clock reaches `at` (ms): a timer for the bulk of it, then a short spin. */
export async function until(at: number): Promise<void> {
  const wait = at - Date.now() - 2;
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  while (Date.now() < at) {
    /* spin the last milliseconds so every racer of every process starts together */
  }
}

/** Fires `requests` at once, request i through `drivers[i % drivers.length]`, and answers each caller's answer. */
export async function burst(
  drivers: readonly JobDriver[],
  requests: readonly EnqueueRequest[],
): Promise<BurstAnswer[]> {
  const settled = await Promise.allSettled(
    requests.map((r, i) => (drivers[i % drivers.length] as JobDriver).enqueue(r)),
  );
  return settled.map((s, i) => {
    const requested = (requests[i] as EnqueueRequest).id;
    return s.status === 'fulfilled'
      ? { requested, id: s.value.id, deduped: s.value.deduped }
      : { requested, error: codeOf(s.reason) };
  });
}

/** One round of the completion race: a live row acked while an enqueue of its key lands. */
export interface CompletionRound {
  /** The live row's id (the one being completed). */
  readonly original: string;
  /** The id the racing enqueue minted. */
  readonly requested: string;
  readonly onConflict: 'dedupe' | 'error';
  /** What the racing enqueue was answered. */
  readonly answer: BurstAnswer;
  /** Whether the ack landed. */
  readonly acked: boolean;
  /** `performance.now()` marks in the racer: when each call began and when its answer came back. */
  readonly ackStart: number;
  readonly ackEnd: number;
  readonly enqStart: number;
  readonly enqEnd: number;
  /** A setup failure (the original's enqueue or claim): the round did not race. */
  readonly setup?: string;
}

/** Hands the turn to the event loop `turns` times: a jitter finer than a timer's millisecond. */
async function yieldTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * One completion race on `queue`: enqueues the original row under `key`, claims it, then acks it through `acker`
 * while `enqueuer` enqueues the same key — the later of the two started `lag` event-loop turns after the other
 * (`lag < 0`: the enqueue first).
 */
export async function completionRound(
  acker: JobDriver,
  enqueuer: JobDriver,
  queue: string,
  key: string,
  lag: number,
  onConflict: 'dedupe' | 'error',
): Promise<CompletionRound> {
  const first = raceRequest(queue, key, 'dedupe');
  const racing = raceRequest(queue, key, onConflict);
  const blank = { ackStart: 0, ackEnd: 0, enqStart: 0, enqEnd: 0, acked: false };
  const base = { original: first.id, requested: racing.id, onConflict };
  const made = await acker.enqueue(first);
  const [claimed] = await acker.claim({
    workerId: `racer-${process.pid}`,
    slots: [{ queue, limit: 1 }],
    visibilityTimeoutMs: 60_000,
  });
  if (made.deduped || claimed?.id !== first.id) {
    return { ...base, ...blank, answer: { requested: racing.id }, setup: 'not claimed' };
  }
  const marks = { ackStart: 0, ackEnd: 0, enqStart: 0, enqEnd: 0 };
  const ack = (async () => {
    await yieldTurns(Math.max(0, lag));
    marks.ackStart = performance.now();
    const landed = await acker.ack(first.id, claimOf(claimed));
    marks.ackEnd = performance.now();
    return landed;
  })();
  const enq = (async (): Promise<BurstAnswer> => {
    await yieldTurns(Math.max(0, -lag));
    marks.enqStart = performance.now();
    try {
      const r = await enqueuer.enqueue(racing);
      return { requested: racing.id, id: r.id, deduped: r.deduped };
    } catch (error) {
      return { requested: racing.id, error: codeOf(error) };
    } finally {
      marks.enqEnd = performance.now();
    }
  })();
  const [acked, answer] = await Promise.all([ack.catch(() => false), enq]);
  return { ...base, ...marks, acked, answer };
}
