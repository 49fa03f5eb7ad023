import type { BackfillInput, BackfillResult } from '../declare/backfill-definition';
import type { RunArgs } from '../declare/run-args';
import { BackfillEnvironmentError, BackfillStalledError } from '../errors/backfill-errors';
import { isThrownInstance, renderError } from '../runtime/render-error';
import { isSoftStop } from '../runtime/run-abort';
import { StepSuspension } from '../runtime/step-suspension';
import { crossTenant } from '../runtime/tenant';
import { uuidv7 } from '../util/ids';
import { resolveBackfillRuntime, type ResolvedBackfillRuntime } from './backfill-runtime';
import { readKeysetPage, type KeysetCursor } from './keyset-source';
import type { BackfillPassProgress } from './ledger';
import { openPass, type OpenedPass } from './open-pass';
import type { ResolvedBackfill } from './resolved';
import { checkedCount } from './count';
import { throttle } from './throttle';

/** What each page's step checkpoints: a cursor and counts, never the rows (a step's output lives as long as the run). */
export interface PageCheckpoint {
  readonly cursor: KeysetCursor | null;
  readonly rows: number;
  readonly batches: number;
  readonly done: boolean;
  /** When this page began (the clock's ms): the next page starts no earlier than 1/rate seconds after it. */
  readonly startedMs?: number;
}

const START: PageCheckpoint = { cursor: null, rows: 0, batches: 0, done: false };

/**
 * One pass of a backfill — the body `backfill()` declares. Checks the environment, opens (or adopts) its ledger row in
 * a step, then handles the source page by page, one `step.run('batch:N')` each: a resumed attempt replays the stored
 * checkpoints without a statement or a pause and reopens the keyset at the cursor they left. After the last page the
 * declared `count` must answer 0 (`X_BACKFILL_STALLED`). A `'none'` tenant sweeps inside its own cross-tenant scope.
 */
export async function backfillPass<T>(
  backfill: ResolvedBackfill<T>,
  args: RunArgs<BackfillInput>,
): Promise<BackfillResult> {
  const runtime = resolveBackfillRuntime(backfill.runtime);
  const sweep = (): Promise<BackfillResult> => runPass(backfill, args, runtime);
  return backfill.tenant === 'none' ? crossTenant(`backfill ${backfill.name}`, sweep) : sweep();
}

async function runPass<T>(
  backfill: ResolvedBackfill<T>,
  args: RunArgs<BackfillInput>,
  runtime: ResolvedBackfillRuntime,
): Promise<BackfillResult> {
  const { environments } = backfill;
  if (environments !== undefined && !environments.includes(runtime.environment)) {
    throw new BackfillEnvironmentError(backfill.name, runtime.environment, environments);
  }
  // idempotent per job, so no step: a retry finds and adopts its own row, a first attempt inserts one
  const opened = await openPass(backfill, runtime, args, args.input.force === true, uuidv7());
  if (opened.previousRunId !== null) {
    return {
      name: backfill.name,
      batches: 0,
      rows: 0,
      skipped: true,
      previousRunId: opened.previousRunId,
    };
  }
  let state = START;
  try {
    for (let page = 0; !state.done; page++) {
      const from = state;
      state = await args.step.run(`batch:${page}`, (signal) =>
        runPage(backfill, runtime, opened, args, from, signal),
      );
    }
    await assertConverged(backfill, args);
    if (runtime.ledger !== undefined && opened.ledgerId !== null) {
      await runtime.ledger.finish(opened.ledgerId, 'completed', progressOf(state, backfill), null);
    }
    return {
      name: backfill.name,
      batches: state.batches,
      rows: state.rows,
      skipped: false,
      previousRunId: null,
    };
  } catch (error) {
    // a suspension parks the run and a drain hands it back uncounted (whatever the pass threw as it unwound): the pass
    // is still in flight, not failed. `isThrownInstance`, since a body may throw a revoked Proxy, which `instanceof`
    // throws on — skipping the failed write
    if (!isThrownInstance(error, StepSuspension) && !isSoftStop(args.ctx.signal.reason))
      await recordFailure(backfill, runtime, opened, state, error);
    throw error;
  }
}

/** Reads, handles and paces one page; answers the checkpoint after it. */
async function runPage<T>(
  backfill: ResolvedBackfill<T>,
  runtime: ResolvedBackfillRuntime,
  opened: OpenedPass,
  args: RunArgs<BackfillInput>,
  from: PageCheckpoint,
  signal: AbortSignal,
): Promise<PageCheckpoint> {
  // the pause is spent inside the step, before the page: measured from the previous page's start, so the statements
  // around a page (its checkpoint, the ledger) are inside the interval and the pages run at `rate`. A resumed attempt
  // replays the stored checkpoints and re-pays none of their pauses: the page after them started long ago.
  if (from.startedMs !== undefined) {
    await throttle(backfill.clock, backfill.rate, from.startedMs, signal);
  }
  const startedMs = backfill.clock.now();
  const source = backfill.source({ ctx: args.ctx });
  // one statement a page: keyset sub-reads with the event loop given back between them were measured to take
  // nothing off the tail of a request served by the same process, and each cost a statement more
  const page = await readKeysetPage<T>(
    backfill.name,
    source,
    backfill.key,
    from.cursor,
    backfill.batch,
  );
  if (page.rows.length === 0) return { ...from, done: true, startedMs };
  await backfill.handle({ rows: page.rows, signal, ctx: args.ctx });
  const next: PageCheckpoint = {
    cursor: page.cursor,
    rows: from.rows + page.rows.length,
    batches: from.batches + 1,
    done: page.rows.length < backfill.batch,
    startedMs,
  };
  await reportProgress(backfill, runtime, opened, next);
  return next;
}

/** The row is a report, never a resume source: a ledger that cannot be written is logged, and the page stands. */
async function reportProgress<T>(
  backfill: ResolvedBackfill<T>,
  runtime: ResolvedBackfillRuntime,
  opened: OpenedPass,
  state: PageCheckpoint,
): Promise<void> {
  if (runtime.ledger === undefined || opened.ledgerId === null) return;
  try {
    await runtime.ledger.progress(opened.ledgerId, progressOf(state, backfill));
  } catch (error) {
    runtime.logger.log('warn', 'jobs.backfill.ledger-failed', {
      backfill: backfill.name,
      write: 'progress',
      error: renderError(error),
    });
  }
}

async function recordFailure<T>(
  backfill: ResolvedBackfill<T>,
  runtime: ResolvedBackfillRuntime,
  opened: OpenedPass,
  state: PageCheckpoint,
  error: unknown,
): Promise<void> {
  if (runtime.ledger === undefined || opened.ledgerId === null) return;
  try {
    await runtime.ledger.finish(
      opened.ledgerId,
      'failed',
      progressOf(state, backfill),
      renderError(error),
    );
  } catch (write) {
    runtime.logger.log('warn', 'jobs.backfill.ledger-failed', {
      backfill: backfill.name,
      write: 'failed',
      error: renderError(write),
    });
  }
}

/** After the last page, the declared count must answer 0: a source and a count that disagree never converge. */
async function assertConverged<T>(
  backfill: ResolvedBackfill<T>,
  args: RunArgs<BackfillInput>,
): Promise<void> {
  if (backfill.count === undefined) return;
  const answered = checkedCount(backfill.name, await backfill.count({ ctx: args.ctx }));
  if (answered > 0) throw new BackfillStalledError(backfill.name, answered);
}

function progressOf<T>(state: PageCheckpoint, backfill: ResolvedBackfill<T>): BackfillPassProgress {
  return {
    rows: state.rows,
    batches: state.batches,
    lastCursor: state.cursor === null ? null : [...state.cursor],
    nowMs: backfill.clock.now(),
  };
}
