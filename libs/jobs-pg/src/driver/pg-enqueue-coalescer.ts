import type { EnqueueRequest, EnqueueResult } from '@ultimat3/jobs';
import type { PgContext } from './pg-context';
import { enqueueMany, enqueueOne, type BatchMemory } from './pg-enqueue';

/** How a coalescing `enqueue()` bounds its statements. */
export interface CoalescingLimits {
  /** Enqueue statements running at once; requests arriving while they all run wait, gathered, for the next. */
  readonly statements: number;
  /**
   * A statement running longer than this (ms) — most likely waiting on a row lock of another transaction holding the
   * same key — stops counting against `statements`, so it does not hold every other enqueue of the process behind it.
   */
  readonly stallMs: number;
  /** Statements in flight at most, stalled ones included: what the coalescer may take of the pool. */
  readonly maxStatements: number;
  /** The most requests one gathered statement carries; the rest wait for the one after. */
  readonly batch: number;
}

/**
 * One statement at a time: everything arriving while it commits goes in the next (classic group commit). Measured at
 * 20 callers in flight on a 2-core machine, two statements at a time made smaller batches and 10–40 % fewer jobs a
 * second; since the callers a statement answered join the next batch, a second slot finds nobody left to send (400
 * statements per 8,000 enqueues either way).
 */
export const COALESCING_LIMITS: CoalescingLimits = {
  statements: 1,
  stallMs: 25,
  maxStatements: 8,
  batch: 500,
};

interface Waiter {
  readonly request: EnqueueRequest;
  readonly resolve: (result: EnqueueResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Whether a batch's failure may be one request's own doing: a value the server refused (SQLSTATE class 22 data
 * exception, 23 integrity violation, 54 limit exceeded) or one that could not be encoded (`JSON.stringify` of a
 * BigInt, `toISOString` of an invalid date). Anything else — a lost connection, a timeout — is the statement's.
 */
function mayBeOneRequests(error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

/** Settles every waiter of a gathered batch from ONE statement, or each from its own when one request broke it. */
async function settleBatch(
  ctx: PgContext,
  waiters: readonly Waiter[],
  memory: BatchMemory | undefined,
): Promise<void> {
  let results: readonly EnqueueResult[];
  try {
    results = await enqueueMany(
      ctx,
      waiters.map((w) => w.request),
      memory,
    );
  } catch (error) {
    if (!mayBeOneRequests(error)) {
      for (const w of waiters) w.reject(error);
      return;
    }
    // the failed statement wrote nothing: answer each request alone, in order, so the error stays its caller's
    for (const w of waiters) await enqueueOne(ctx, w.request).then(w.resolve, w.reject);
    return;
  }
  waiters.forEach((w, i) => w.resolve(results[i] as EnqueueResult));
}

/**
 * `enqueue()` with group commit in the driver, for a {@link PgExecutor.shared} executor. With no enqueue statement in
 * flight a request is sent at once, alone — a lone caller's latency is one statement, as without coalescing. While
 * statements are in flight, requests arriving meanwhile are gathered: at the end of the current turn of the event loop
 * when a statement slot is free, else at the end of the turn in which one frees — so the callers that statement just
 * answered, enqueueing again at once, join them — they go as ONE batch statement (`enqueueMany`), so their commits
 * share one WAL flush. (Flushed the moment a statement ended, the first caller it answered went alone ahead of the
 * others: 20 callers in flight sent batches of 1 and 19 in turn, two statements per 20 jobs.)
 *
 * Each caller is answered exactly what its own enqueue would answer: requests repeating an id or a key inside a batch
 * are judged as if sent one after another; a strict request (onConflict 'error') is never gathered — it would take
 * the whole batch down with its duplicate — and runs alone; a batch a request's bad value broke is re-run one request
 * at a time, so that error reaches only its caller; any other failure of the statement rejects the callers of that
 * batch, and nobody else. The wake's NOTIFY stays throttled per queue per slot (the batch statements announce as the
 * single one does).
 */
export function coalescingEnqueue(
  ctx: PgContext,
  limits: CoalescingLimits = COALESCING_LIMITS,
  memory?: BatchMemory,
): (request: EnqueueRequest) => Promise<EnqueueResult> {
  let running = 0; // statements in flight that count against `limits.statements`
  let inFlight = 0; // every statement in flight, stalled ones included
  let gathered: Waiter[] = [];
  let flushScheduled = false;

  const run = (statement: Promise<void>): void => {
    running++;
    inFlight++;
    let stalled = false;
    const stall = setTimeout(() => {
      stalled = true;
      running--;
      flush();
    }, limits.stallMs);
    stall.unref();
    void statement.finally(() => {
      clearTimeout(stall);
      if (!stalled) running--;
      inFlight--;
      // not at once: the callers this statement answered send their next enqueue in the microtasks that follow, and
      // go in the same batch as those gathered meanwhile instead of one of them alone ahead of the rest
      scheduleFlush();
    });
  };
  const sendAlone = (w: Waiter): void =>
    run(enqueueOne(ctx, w.request, memory).then(w.resolve, w.reject));

  function flush(): void {
    while (gathered.length > 0 && running < limits.statements && inFlight < limits.maxStatements) {
      const batch = gathered.slice(0, limits.batch);
      gathered = gathered.slice(batch.length);
      if (batch.length === 1) sendAlone(batch[0] as Waiter);
      else run(settleBatch(ctx, batch, memory));
    }
  }

  const scheduleFlush = (): void => {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(() => {
      flushScheduled = false;
      flush();
    });
  };

  return (request) =>
    new Promise<EnqueueResult>((resolve, reject) => {
      const waiter: Waiter = { request, resolve, reject };
      if (request.onConflict === 'error') {
        sendAlone(waiter);
        return;
      }
      gathered.push(waiter);
      if (running === 0 && !flushScheduled) flush();
      else if (running < limits.statements) scheduleFlush();
    });
}
