import { InvariantError } from '../../errors/runtime-errors';
import type { TimerHandle } from '../../util/clock';
import { logError, withErrorStack } from '../../util/log-format';
import type { OutboxRelayStats } from './outbox-relay';
import { relayPass, type OutboxPassResult } from './relay-pass';
import {
  OUTBOX_RELAY_IDLE_POLL_MAX_MS,
  OUTBOX_RELAY_WOKEN_IDLE_POLL_MAX_MS,
  type ResolvedRelayOptions,
} from './relay-options';
import { relayStop, type RelayStopState } from './relay-stop';

type RelayState = 'new' | 'running' | 'draining' | 'stopped';

/**
 * The state and loop behind one `outboxRelay()`: its lifecycle (`new` → `running` → `draining` → `stopped`), the timer
 * of the next pass, the idle backoff, the one pass in flight, and the counts `stats()` reads.
 */
export class RelayLoop {
  private state: RelayState = 'new';
  private wakeLive = false;
  private timer: TimerHandle | undefined;
  private wait: number;
  /** The wait after the next failed pass: the interval, doubling while passes keep failing, up to the idle ceiling. */
  private failWait: number;
  private inFlight: Promise<void> | undefined;
  private wakeAgain = false;
  private readonly stopState: RelayStopState = { waiting: undefined };
  private readonly counts = {
    passes: 0,
    claimed: 0,
    published: 0,
    deduped: 0,
    released: 0,
    publishFailures: 0,
    quarantined: 0,
    tickFailures: 0,
  };

  constructor(private readonly config: ResolvedRelayOptions) {
    this.wait = config.intervalMs;
    this.failWait = config.intervalMs;
  }

  /** The claimant token the relay stamps on what it claims. */
  get claimant(): string {
    return this.config.claimant;
  }

  /** Whether passes may still move rows: false once draining, which stops the pass in flight between rows. */
  readonly keepGoing = (): boolean => this.state === 'new' || this.state === 'running';

  /** Starts the loop: a pass now. Twice is `X_INVARIANT`. */
  start(): void {
    const { claimant, logger } = this.config;
    if (this.state !== 'new')
      throw new InvariantError(`outboxRelay ${claimant} was already started.`);
    this.state = 'running';
    logger.log('info', 'jobs.outbox.relay-started', { relay: claimant });
    this.kick();
  }

  /** A pass now, the wait back at the interval; one in flight runs another straight after. */
  wake(): void {
    this.wait = this.config.intervalMs;
    this.kick();
  }

  /** Records whether a proven cross-process wake is live: it sets the idle ceiling from the next wait. */
  setWakeLive(live: boolean): void {
    this.wakeLive = live;
  }

  /** Runs one pass after any in flight and answers it; refused once draining. */
  async runOnce(): Promise<OutboxPassResult> {
    if (!this.keepGoing()) {
      throw new InvariantError(`outboxRelay ${this.config.claimant} is ${this.state}.`);
    }
    while (this.inFlight !== undefined) await this.inFlight;
    return this.occupy(this.pass());
  }

  /** Stops polling; the pass in flight stops between rows. */
  beginDrain(): void {
    if (this.state === 'stopped' || this.state === 'draining') return;
    this.halt('draining');
    this.config.logger.log('info', 'jobs.outbox.relay-draining', { relay: this.config.claimant });
  }

  /** Stops and joins the pass in flight, bounded by the earliest `deadlineAt` any stop() gave. */
  async stop(deadlineAt: number | undefined): Promise<void> {
    if (this.state === 'stopped') return;
    const { clock, logger, claimant } = this.config;
    this.halt('draining');
    await relayStop(this.stopState, {
      clock,
      deadlineAt,
      inFlight: () => this.inFlight,
      onAbandoned: () =>
        logger.log('error', 'jobs.outbox.drain-abandoned', { relay: claimant, deadlineAt }),
    });
    // a concurrent stop() may have finished first (the state changed across the await)
    if ((this.state as RelayState) !== 'stopped') {
      this.halt('stopped');
      logger.log('info', 'jobs.outbox.relay-stopped', { relay: claimant });
    }
  }

  /** What the relay has done since it was created. */
  stats(): OutboxRelayStats {
    return { ...this.counts, wakeLive: this.wakeLive };
  }

  private async pass(): Promise<OutboxPassResult> {
    const counts = this.counts;
    counts.passes++;
    const result = await relayPass(this.config, this.keepGoing);
    counts.claimed += result.claimed;
    counts.published += result.published;
    counts.deduped += result.deduped;
    counts.released += result.released;
    counts.quarantined += result.quarantined;
    if (result.failure) counts.publishFailures++;
    return result;
  }

  /** A pass whose throw is logged, never left unobserved: `'failed'` re-arms the loop. */
  private async guardedPass(): Promise<OutboxPassResult | 'failed'> {
    try {
      return await this.pass();
    } catch (error) {
      this.counts.tickFailures++;
      this.config.logger.log(
        'error',
        'jobs.outbox.tick-failed',
        withErrorStack({ relay: this.config.claimant, error: logError(error) }, error),
      );
      return 'failed';
    }
  }

  /** The wait after one more pass failed on an outage: the interval, doubling while they keep failing. */
  private backOff(): number {
    const ceiling = idleCeilingMs(this.config, this.wakeLive);
    const ms = Math.min(this.failWait, ceiling);
    this.failWait = Math.min(ms * 2, ceiling);
    return ms;
  }

  private arm(ms: number): void {
    this.timer?.cancel();
    this.timer = this.config.clock.setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, ms);
  }

  private async loop(): Promise<void> {
    const { intervalMs } = this.config;
    for (;;) {
      this.wakeAgain = false;
      const result = await this.guardedPass();
      if (this.state !== 'running') return;
      if (result === 'failed' || result.failure !== undefined) {
        // a wake during a failed pass waits out the wait with it: no pass straight after a failure. A row's own
        // failure is tried again at the interval (its tries lead to quarantine); an outage (the pass threw, or the
        // database was out of reach) at the interval, then twice as long each time up to the idle ceiling
        this.wakeAgain = false;
        this.wait = intervalMs;
        return this.arm(result === 'failed' || result.outage ? this.backOff() : intervalMs);
      }
      this.failWait = intervalMs;
      if (result.claimed > 0 || this.wakeAgain) {
        this.wait = intervalMs;
        continue;
      }
      // clamped here too: a wake lost while the wait sat at the woken ceiling drops back at once
      this.arm(Math.min(this.wait, idleCeilingMs(this.config, this.wakeLive)));
      this.wait = Math.min(this.wait * 2, idleCeilingMs(this.config, this.wakeLive));
      return;
    }
  }

  /**
   * Serialises every pass: one at a time per relay. A kick that met the pass in flight (a wake, or the armed timer
   * falling due) runs the loop once it settles: the loop's own passes read it themselves, but a `runOnce()` pass does
   * not, and the kick would be lost — with the timer it consumed, the last one armed.
   */
  private occupy<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight = settled;
    void settled.then(() => {
      if (this.inFlight !== settled) return;
      this.inFlight = undefined;
      if (this.wakeAgain) this.kick();
    });
    return work;
  }

  private kick(): void {
    if (this.state !== 'running') return;
    if (this.inFlight !== undefined) {
      this.wakeAgain = true;
      return;
    }
    this.timer?.cancel();
    this.timer = undefined;
    void this.occupy(this.loop());
  }

  private halt(next: 'draining' | 'stopped'): void {
    if (this.state === 'stopped') return;
    this.state = next;
    this.timer?.cancel();
    this.timer = undefined;
  }
}

/** The idle ceiling now: the declared one, else 5 s while a proven wake is live and 2 s without — never below the interval. */
function idleCeilingMs(options: ResolvedRelayOptions, wakeLive: boolean): number {
  if (options.idlePollMaxMs !== undefined) return options.idlePollMaxMs;
  const ceiling = wakeLive ? OUTBOX_RELAY_WOKEN_IDLE_POLL_MAX_MS : OUTBOX_RELAY_IDLE_POLL_MAX_MS;
  return Math.max(ceiling, options.intervalMs);
}
