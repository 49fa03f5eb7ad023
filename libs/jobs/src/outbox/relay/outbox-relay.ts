import { InvariantError } from '../../errors/runtime-errors';
import type { TimerHandle } from '../../util/clock';
import { relayPass, type OutboxPassResult } from './relay-pass';
import {
  OUTBOX_RELAY_IDLE_POLL_MAX_MS,
  OUTBOX_RELAY_WOKEN_IDLE_POLL_MAX_MS,
  resolveRelayOptions,
  type OutboxRelayOptions,
  type ResolvedRelayOptions,
} from './relay-options';
import { relayStop, type RelayStopState } from './relay-stop';
import { logError } from '../../util/log-format';

/** What a relay has done since it was created. */
export interface OutboxRelayStats {
  readonly passes: number;
  readonly claimed: number;
  readonly published: number;
  readonly deduped: number;
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
  stats(): OutboxRelayStats;
}

type RelayState = 'new' | 'running' | 'draining' | 'stopped';

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
  const config = resolveRelayOptions(options);
  const { clock, logger, intervalMs, claimant } = config;
  let state: RelayState = 'new';
  let wakeLive = false;
  let timer: TimerHandle | undefined;
  let wait = intervalMs;
  let inFlight: Promise<void> | undefined;
  let wakeAgain = false;
  const stopState: RelayStopState = { waiting: undefined };
  const stats = {
    passes: 0,
    claimed: 0,
    published: 0,
    deduped: 0,
    released: 0,
    publishFailures: 0,
    quarantined: 0,
    tickFailures: 0,
  };

  const keepGoing = (): boolean => state === 'new' || state === 'running';

  const pass = async (): Promise<OutboxPassResult> => {
    stats.passes++;
    const result = await relayPass(config, keepGoing);
    stats.claimed += result.claimed;
    stats.published += result.published;
    stats.deduped += result.deduped;
    stats.released += result.released;
    stats.quarantined += result.quarantined;
    if (result.failure) stats.publishFailures++;
    return result;
  };

  /** A pass whose throw is logged, never left unobserved: `'failed'` re-arms the loop. */
  const guardedPass = async (): Promise<OutboxPassResult | 'failed'> => {
    try {
      return await pass();
    } catch (error) {
      stats.tickFailures++;
      logger.log('error', 'jobs.outbox.tick-failed', { relay: claimant, error: logError(error) });
      return 'failed';
    }
  };

  const arm = (ms: number): void => {
    timer?.cancel();
    timer = clock.setTimeout(() => {
      timer = undefined;
      kick();
    }, ms);
  };

  const loop = async (): Promise<void> => {
    for (;;) {
      wakeAgain = false;
      const result = await guardedPass();
      if (state !== 'running') return;
      if (result === 'failed' || result.failure !== undefined) {
        wait = intervalMs;
        return arm(intervalMs);
      }
      if (result.claimed > 0 || wakeAgain) {
        wait = intervalMs;
        continue;
      }
      // clamped here too: a wake lost while the wait sat at the woken ceiling drops back at once
      arm(Math.min(wait, idleCeilingMs(config, wakeLive)));
      wait = Math.min(wait * 2, idleCeilingMs(config, wakeLive));
      return;
    }
  };

  /** Serialises every pass: one at a time per relay. */
  const occupy = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    inFlight = settled;
    void settled.then(() => {
      if (inFlight === settled) inFlight = undefined;
    });
    return work;
  };

  const kick = (): void => {
    if (state !== 'running') return;
    if (inFlight !== undefined) {
      wakeAgain = true;
      return;
    }
    timer?.cancel();
    timer = undefined;
    void occupy(loop());
  };

  const halt = (next: 'draining' | 'stopped'): void => {
    if (state === 'stopped') return;
    state = next;
    timer?.cancel();
    timer = undefined;
  };

  return {
    id: claimant,
    start() {
      if (state !== 'new') throw new InvariantError(`outboxRelay ${claimant} was already started.`);
      state = 'running';
      logger.log('info', 'jobs.outbox.relay-started', { relay: claimant });
      kick();
    },
    wake() {
      wait = intervalMs;
      kick();
    },
    setWakeLive(live) {
      wakeLive = live;
    },
    async runOnce() {
      if (!keepGoing()) throw new InvariantError(`outboxRelay ${claimant} is ${state}.`);
      while (inFlight !== undefined) await inFlight;
      return occupy(pass());
    },
    beginDrain() {
      if (state === 'stopped' || state === 'draining') return;
      halt('draining');
      logger.log('info', 'jobs.outbox.relay-draining', { relay: claimant });
    },
    async stop(deadlineAt) {
      if (state === 'stopped') return;
      halt('draining');
      await relayStop(stopState, {
        clock,
        deadlineAt,
        inFlight: () => inFlight,
        onAbandoned: () =>
          logger.log('error', 'jobs.outbox.drain-abandoned', { relay: claimant, deadlineAt }),
      });
      // a concurrent stop() may have finished first (the state changed across the await)
      if ((state as RelayState) !== 'stopped') {
        halt('stopped');
        logger.log('info', 'jobs.outbox.relay-stopped', { relay: claimant });
      }
    },
    stats: () => ({ ...stats, wakeLive }),
  };
}

/** The idle ceiling now: the declared one, else 5 s while a proven wake is live and 2 s without — never below the interval. */
function idleCeilingMs(options: ResolvedRelayOptions, wakeLive: boolean): number {
  if (options.idlePollMaxMs !== undefined) return options.idlePollMaxMs;
  const ceiling = wakeLive ? OUTBOX_RELAY_WOKEN_IDLE_POLL_MAX_MS : OUTBOX_RELAY_IDLE_POLL_MAX_MS;
  return Math.max(ceiling, options.intervalMs);
}
