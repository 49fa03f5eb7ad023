import type { WakeHandOff } from '../driver/backend';
import { WorkerParts } from './worker-parts';
import { beginWorkerDrain, startWorker, stopWorker } from './worker-lifecycle';
import { workerSettings } from './worker-settings';
import type { JobWorker, JobWorkerOptions } from './worker-options';

/**
 * A worker: ONE claim per pass over every queue with a free slot (what it asks for: `ClaimPlanner`; its slots:
 * `SlotLedger`; the passes and the claims on the wire: `PassLoop`), every `pollIntervalMs` while there is
 * work, the wait doubling to the idle ceiling while there is none (`DueTimers`). Its claims name the jobs it
 * serves, so a row of a job it does not know waits for a worker that knows it (logged by `UnservedNames`). A freed slot
 * kicks a pass at once (with a proven wake, only while a queue is owed a claim: `OwedQueues`), and so does an
 * in-process enqueue; so does a cross-process wake, which also asks for one sweep pass once
 * the rows its throttled announcement stands for have committed; a row handed back due within a minute gets a timer.
 * Each held run's lease is renewed by its heartbeat; a stop waits for the work under way (`drainWork`).
 *
 * Busy, it batches both ends: a claim takes rows ahead of the free slots (see `prefetchBuffer`), and acks leave in
 * batches (see `ackBatcher`). Per run it keeps little: no AbortController unless the body reads its signal, no timer
 * (the heartbeats share one), one promise chain. A completed run gives its slot to the next row as soon as its ack is
 * sent rather than when it lands: a commit's WAL flush (~0.7 ms here) would otherwise bound each slot to ~1,400 runs
 * a second.
 */
export function jobWorker(
  options: JobWorkerOptions,
): JobWorker & { readonly handOff: WakeHandOff } {
  // its settings, then its parts built in wiring order (`WorkerParts`); its start and stop: `worker-lifecycle.ts`
  const w = new WorkerParts(options, workerSettings(options));
  const { ledger, timers, loop, stats, runs } = w;
  return {
    id: w.settings.id,
    handOff: w.sides.handOff,
    start: () => startWorker(w),
    signalEnqueued(queue, sweepAfterMs) {
      if (w.state !== 'running' || !ledger.serves(queue)) return;
      // A woken loop passes now (or right after the claim on the wire), then at the floor again — and, for a
      // throttled wake, sweeps once more when the rows its announcement stands for have committed.
      timers.woken(sweepAfterMs);
      loop.woken();
    },
    signalSweep(queue, sweepAfterMs) {
      if (w.state !== 'running' || !ledger.serves(queue)) return;
      timers.sweepIn(sweepAfterMs);
    },
    setWakeLive(live) {
      stats.wakeLive = live;
    },
    beginDrain(signal = 'SIGTERM') {
      beginWorkerDrain(w, signal);
    },
    stop: (deadlineAt) => stopWorker(w, deadlineAt),
    stats: () => ({ ...stats, inFlight: runs.size }),
  };
}
