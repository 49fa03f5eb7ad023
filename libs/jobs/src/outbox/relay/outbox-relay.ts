import type { OutboxPassResult } from './relay-pass';
import { resolveRelayOptions, type OutboxRelayOptions } from './relay-options';
import { RelayLoop } from './relay-loop';

/** What a relay has done since it was created. */
export interface OutboxRelayStats {
  /** Passes run. */
  readonly passes: number;
  /** Staged rows claimed. */
  readonly claimed: number;
  /** Rows published and retired (a `deduped` publish included). */
  readonly published: number;
  /** Of those, the publishes that met an existing job (a republish, or a live key's holder). */
  readonly deduped: number;
  /** Rows handed straight back: behind a failed publish of their transaction, or on a drain. */
  readonly released: number;
  /** Passes in which a publish failed and will be tried again (the database out of reach included). */
  readonly publishFailures: number;
  /** Rows quarantined (`jobs.outbox.quarantined`): a row out of tries, and the rows its transaction staged after it. */
  readonly quarantined: number;
  /** Passes that threw (`jobs.outbox.tick-failed`). */
  readonly tickFailures: number;
  /** Whether a proven cross-process wake is live now ({@link OutboxRelay.setWakeLive}): the idle ceiling is 5 s. */
  readonly wakeLive: boolean;
}

/** A running outbox relay. */
export interface OutboxRelay {
  /** The claimant token it stamps on what it claims. */
  readonly id: string;
  /** Starts the loop: a pass now, then on the interval / idle backoff. */
  start(): void;
  /** A pass now (the `x_outbox_wake` LISTEN calls this); one in flight runs another straight after. */
  wake(): void;
  /**
   * Tells the relay a proven cross-process wake is live (raises the default idle ceiling from 2 s to 5 s: 12 claims
   * per idle minute instead of 30) or lost (back to 2 s from the next wait). A declared `idlePollMaxMs` ignores it.
   */
  setWakeLive(live: boolean): void;
  /** Runs one pass now, after any in flight, and answers what it did (a script, a test). Works before `start()`. */
  runOnce(): Promise<OutboxPassResult>;
  /** The drain's accept phase: stop polling. The pass in flight stops between rows and releases the rest. */
  beginDrain(): void;
  /**
   * Stops and JOINS the pass in flight — await it before closing the database. `deadlineAt` (epoch ms on the relay's
   * clock) bounds the wait; it binds late, so a stop() landing on one already waiting bounds that wait too, and the
   * earliest deadline wins.
   */
  stop(deadlineAt?: number): Promise<void>;
  /** What the relay has done since it was created. */
  stats(): OutboxRelayStats;
}

/**
 * The outbox relay: claims committed staged rows (a lease of `claimLeaseMs`, fenced on its claimant), publishes each
 * in `stagedAt, id` order through `driver.enqueue(record.request)` — under the staged id, so a republish after a crash
 * meets the job the first publish made, even a finished one — then retires them. No single row stops the others: a
 * row that fails to publish holds back only the later rows of its own transaction, is tried again each pass (after
 * `intervalMs`), and after `maxPublishAttempts` (5) is quarantined with them — see `relayPass`. While passes move
 * rows it runs them back to back; idle, it waits `intervalMs`, doubling up to the idle ceiling (2 s, or 5 s while
 * `setWakeLive(true)`); `wake()` runs one now. A pass that throws is logged as `jobs.outbox.tick-failed` and the loop
 * re-arms after `intervalMs`.
 */
export function outboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const loop = new RelayLoop(resolveRelayOptions(options));
  return {
    id: loop.claimant,
    start: () => loop.start(),
    wake: () => loop.wake(),
    setWakeLive: (live) => loop.setWakeLive(live),
    runOnce: () => loop.runOnce(),
    beginDrain: () => loop.beginDrain(),
    stop: (deadlineAt) => loop.stop(deadlineAt),
    stats: () => loop.stats(),
  };
}
