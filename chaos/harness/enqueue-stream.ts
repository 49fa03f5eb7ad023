/**
 * A steady enqueuer for scenarios that fault the server under a running fleet: it enqueues `total` jobs in batches,
 * one batch in flight at a time, and keeps every acknowledged id with the moment its enqueue resolved — so the spec can
 * check that nothing acknowledged was lost, and tell an acknowledgement a fault could legitimately lose (one inside a
 * documented window) from one it must not.
 */
import type { EnqueueRequest, JobDriver } from '@ultimat3/jobs';

/** One enqueue the driver answered. */
export interface Acknowledged {
  readonly id: string;
  /** The job's number (the builder's argument). */
  readonly n: number;
  /** Epoch ms the enqueue resolved. */
  readonly at: number;
}

/** Options of {@link enqueueStream}. */
export interface EnqueueStreamOptions {
  readonly driver: JobDriver;
  /** Builds job `n`'s request: a fixed id per `n`, so a batch sent again after a failure dedupes. */
  readonly request: (n: number) => EnqueueRequest;
  /** Jobs in all. */
  readonly total: number;
  /** Jobs per enqueueMany (default 20). */
  readonly batch?: number;
  /** Pause between two batches (default 50 ms). */
  readonly intervalMs?: number;
}

/** A running stream. */
export interface EnqueueStream {
  /** Every acknowledged enqueue so far, in order. */
  readonly acknowledged: readonly Acknowledged[];
  /** Batches that failed (each sent again later, same ids). */
  readonly failedBatches: number;
  /** Resolves once every job is acknowledged (or the stream was stopped). */
  readonly done: Promise<void>;
  /** Stops sending after the batch in flight; resolves once it settled. */
  stop(): Promise<void>;
}

/** Starts enqueueing at once. */
export function enqueueStream(options: EnqueueStreamOptions): EnqueueStream {
  const { driver, request, total } = options;
  const batch = options.batch ?? 20;
  const intervalMs = options.intervalMs ?? 50;
  const acknowledged: Acknowledged[] = [];
  const retry: number[][] = [];
  let next = 0;
  let failedBatches = 0;
  let stopped = false;

  const take = (): number[] | undefined => {
    const again = retry.shift();
    if (again !== undefined) return again;
    if (next >= total) return undefined;
    const ns = Array.from({ length: Math.min(batch, total - next) }, (_, i) => next + i);
    next += ns.length;
    return ns;
  };

  const loop = async (): Promise<void> => {
    for (;;) {
      if (stopped) return;
      const ns = take();
      if (ns === undefined) return;
      const requests = ns.map(request);
      try {
        const results = await driver.enqueueMany(requests);
        const at = Date.now();
        results.forEach((r, i) => acknowledged.push({ id: r.id, n: ns[i]!, at }));
      } catch {
        failedBatches++;
        retry.push(ns);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  };
  const done = loop();

  return {
    acknowledged,
    get failedBatches() {
      return failedBatches;
    },
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}
