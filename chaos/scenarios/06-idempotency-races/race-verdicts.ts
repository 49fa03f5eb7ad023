/**
 * Scenario 6's invariants, counted from what the racers were answered and what the backend holds afterwards.
 *
 * The documented answers (README "Value contract", docs/design.md "One live run per key"):
 * - At most one live row holds a `(name, tenant, idempotency key)`. An enqueue that meets it answers THAT row's ids
 *   with `deduped: true`, or `X_JOB_DUPLICATE` under `onConflict: 'error'` — never an opaque error.
 * - A finished row no longer holds its key: an enqueue after the holder completed creates a new row.
 * So an enqueue racing the completion of the live row gets one of two answers, and which one is bounded by time: one
 * that began after the ack had returned must create a row; one answered before the ack began must dedupe.
 */
import type { JobRow, JobState } from '@ultimat3/jobs';
import type { BurstAnswer, CompletionRound } from './race-rounds';

/** Violations of one kind, summed over rounds. */
export type Counts = Record<string, number>;

/** Every invariant a burst is judged on, each at 0. */
export const burstCounts = (): Counts => ({
  'rows other than one per key': 0,
  'bursts without exactly one created': 0,
  'errors not X_JOB_DUPLICATE': 0,
  "answers naming another row than the key's": 0,
  "dedupes under onConflict 'error'": 0,
});

/** Every invariant a completion race is judged on, each at 0. */
export const completionCounts = (): Counts => ({
  'rounds that could not race': 0,
  'completions lost': 0,
  'errors not X_JOB_DUPLICATE': 0,
  'dedupes to a row completed before the enqueue began': 0,
  "dedupes naming another row than the key's": 0,
  'rows created by a deduped enqueue': 0,
  'rows created beside a key live throughout': 0,
  'created rows missing or not live': 0,
});

const add = (counts: Counts, name: string, n = 1): void => {
  counts[name] = (counts[name] ?? 0) + n;
};

/** Whether an answer is the documented "a live row holds the key" for its conflict mode. */
const isDuplicate = (a: BurstAnswer, onConflict: 'dedupe' | 'error'): boolean =>
  onConflict === 'error' ? a.error === 'X_JOB_DUPLICATE' : a.deduped === true;

/**
 * One burst of identical enqueues: `answers` from every caller, `rows` the rows the backend holds under the callers'
 * ids afterwards (the key's rows: each caller minted its own id).
 */
export function burstViolations(
  answers: readonly BurstAnswer[],
  rows: readonly JobRow[],
  onConflict: 'dedupe' | 'error',
  counts: Counts,
): void {
  add(counts, 'rows other than one per key', Math.abs(rows.length - 1));
  const holder = rows[0]?.id;
  const created = answers.filter((a) => a.error === undefined && a.deduped === false);
  add(counts, 'bursts without exactly one created', created.length === 1 ? 0 : 1);
  for (const a of answers) {
    if (a.error !== undefined && !isDuplicate(a, onConflict))
      add(counts, 'errors not X_JOB_DUPLICATE');
    if (a.error === undefined && a.id !== holder)
      add(counts, "answers naming another row than the key's");
    if (onConflict === 'error' && a.deduped === true)
      add(counts, "dedupes under onConflict 'error'");
  }
}

const LIVE: ReadonlySet<JobState> = new Set(['ready', 'delayed', 'running', 'suspended']);

/** One completion race, judged against the two rows afterwards (the original and the racing enqueue's own id). */
export function completionViolations(
  round: CompletionRound,
  original: JobRow | undefined,
  racing: JobRow | undefined,
  counts: Counts,
): void {
  if (round.setup !== undefined) {
    add(counts, 'rounds that could not race');
    return;
  }
  const a = round.answer;
  if (!round.acked || original?.state !== 'done') add(counts, 'completions lost');
  const duplicate = isDuplicate(a, round.onConflict);
  const created = a.error === undefined && a.deduped === false;
  if (!duplicate && !created) {
    add(counts, 'errors not X_JOB_DUPLICATE');
    return;
  }
  if (duplicate) {
    if (round.enqStart > round.ackEnd)
      add(counts, 'dedupes to a row completed before the enqueue began');
    if (a.error === undefined && a.id !== round.original)
      add(counts, "dedupes naming another row than the key's");
    if (racing !== undefined) add(counts, 'rows created by a deduped enqueue');
    return;
  }
  if (round.enqEnd < round.ackStart) add(counts, 'rows created beside a key live throughout');
  if (a.id !== round.requested || racing === undefined || !LIVE.has(racing.state)) {
    add(counts, 'created rows missing or not live');
  }
}

/** The rounds' outcome mix, as figures: proof the races really landed on both sides of the completion. */
export function completionMix(rounds: readonly CompletionRound[]): {
  deduped: number;
  created: number;
} {
  let deduped = 0;
  let created = 0;
  for (const r of rounds) {
    if (r.answer.error === undefined && r.answer.deduped === false) created++;
    else if (r.answer.deduped === true || r.answer.error === 'X_JOB_DUPLICATE') deduped++;
  }
  return { deduped, created };
}
