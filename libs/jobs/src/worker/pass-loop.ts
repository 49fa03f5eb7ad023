import type { JobDriver } from '../driver/job-driver';
import type { ClaimedJob } from '../driver/job-row';
import type { JobRegistry } from '../registry/job-registry';
import type { JobMetrics } from '../runtime/metrics';
import type { Clock } from '../util/clock';
import type { JobsLogger } from '../util/logger';
import { announceExhaustedInBackground } from './claim-exhausted';
import type { ClaimPlanner, PlannedClaim } from './claim-planner';
import type { DueTimers } from './due-timers';
import type { HandBacks } from './hand-backs';
import type { OwedQueues } from './owed-queues';
import type { PrefetchBuffer } from './prefetch';
import type { MutableWorkerStats } from './worker-stats';

/**
 * How many claims a busy worker keeps on the wire. A claim's cost grows with its rows (~30 µs each in PostgreSQL on a
 * 2-core VM), so one claim at a time caps a worker near 1 / (that cost) however large the claims; two overlap the
 * database's work on one with the worker's on the other's rows.
 */
export const CLAIMS_ON_THE_WIRE = 2;

/** What {@link PassLoop} needs of the worker around it. */
export interface PassLoopOptions {
  readonly workerId: string;
  readonly driver: JobDriver;
  readonly registry: JobRegistry;
  readonly clock: Clock;
  readonly logger: JobsLogger;
  readonly metrics: JobMetrics | undefined;
  readonly stats: MutableWorkerStats;
  readonly handBacks: HandBacks;
  readonly held: PrefetchBuffer;
  readonly timers: DueTimers;
  /** The planner once the worker started (undefined before). */
  readonly planner: () => ClaimPlanner | undefined;
  /** Whether the worker still claims (false before start and once it drains). */
  readonly running: () => boolean;
  /** The queues owed a claim ({@link OwedQueues}): every signal owes them all. */
  readonly owed: OwedQueues;
  /**
   * Whether what the worker hears covers every row that becomes claimable now (a proven cross-process wake and no
   * per-process caps): then a run that ends with no queue owed sends no claim ({@link PassLoop.freed}).
   */
  readonly heard: () => boolean;
  /** Places the rows a claim answered (the worker's runs). */
  readonly place: (claimed: readonly ClaimedJob[]) => void;
  /**
   * Told when a claim answered nothing, once it is no longer counted on the wire: the worker is idle (a backend's
   * hand-off reads its offers and registers it then).
   */
  readonly idle?: () => void;
  /** Told when a claim came back, answered or not (its rows placed, no longer counted as on their way). */
  readonly returned?: () => void;
}

/**
 * The claim loop: a pass hands stale held rows back and sends the one claim the served queues need. At most
 * {@link CLAIMS_ON_THE_WIRE} claims are out at once (a wake's pass: one); a pass asked for while they are runs when
 * one returns — ONE pass however many were asked for, as it serves every queue. What the claim found sets the next poll
 * ({@link DueTimers}).
 */
export class PassLoop {
  /** The claims on the wire (the drain waits for them). */
  readonly passes = new Set<Promise<void>>();
  /** A pass asked for while the claims on the wire were all it may have out: it runs when one returns. */
  private again = false;
  /** A slot came free, owed nothing, while a claim was out: if that claim comes back full, a pass follows it. */
  private freedMeanwhile = false;

  constructor(private readonly o: PassLoopOptions) {}

  /**
   * Runs a pass now — while fewer than {@link CLAIMS_ON_THE_WIRE} claims are out — or asks for ONE more after. Something
   * may have made rows claimable (a timer, the start, an in-process enqueue): every served queue is owed a claim.
   */
  kick(): void {
    this.o.owed.oweAll();
    this.kickBelow(CLAIMS_ON_THE_WIRE);
  }

  /**
   * A run gave its slot back: a pass, as {@link PassLoop.kick} runs one — unless the worker hears of every row that
   * becomes claimable and no queue is owed a claim ({@link OwedQueues}), where that claim would find nothing. The
   * worker is then idle (a backend's hand-off reads its offers), or, with a claim out, passes once that claim comes
   * back owing its queue.
   */
  freed(): void {
    const plan = this.o.planner();
    if (plan === undefined || !this.o.heard() || this.o.owed.any()) {
      this.kickBelow(CLAIMS_ON_THE_WIRE);
      return;
    }
    if (plan.claiming > 0) this.freedMeanwhile = true;
    else if (this.o.running()) this.o.idle?.();
  }

  /**
   * A wake's pass: now when no claim is out, else ONE more right after the claim on the wire returns (its snapshot may
   * predate the commit the wake announced). A flood of wakes so costs one claim at a time, each taking every row
   * committed meanwhile, rather than a second claim racing the first for the same few rows.
   */
  woken(): void {
    this.o.owed.oweAll();
    this.kickBelow(1);
  }

  private kickBelow(onTheWire: number): void {
    const plan = this.o.planner();
    if (!this.o.running() || plan === undefined) return;
    // the armed poll is left as it is: what this pass's claim finds re-arms it (DueTimers keeps one due about then)
    if (plan.claiming >= onTheWire) this.again = true;
    else this.pass(plan);
  }

  private pass(plan: ClaimPlanner): void {
    const { clock, stats, handBacks, held, timers } = this.o;
    const now = clock.now();
    stats.lastPassAt = now;
    handBacks.release(held.takeStale(now));
    const claim = plan.plan(now);
    // A full worker asks the queue for nothing; the run that finishes kicks the next pass.
    if (claim === undefined) {
      // with a claim out, its return runs the pass asked for meanwhile; without, held rows are checked for staleness
      if (plan.claiming > 0) this.again = true;
      else if (held.size() > 0) timers.pollLater();
      return;
    }
    const sent: Promise<void> = this.claimAndPlace(plan, claim).then(
      (empty) => this.back(plan, claim, sent, empty),
      (error: unknown) => {
        this.back(plan, claim, sent, false);
        throw error;
      },
    );
    this.passes.add(sent);
  }

  /**
   * A claim came back (its rows placed): no longer on the wire. Only then is an empty one told as idle — a listener
   * reads the worker's offers at once, and a claim still counted on the wire makes them none (a backend's hand-off
   * would then wait for the next empty poll, missing the rows meanwhile).
   */
  private back(plan: ClaimPlanner, claim: PlannedClaim, sent: Promise<void>, empty: boolean): void {
    this.passes.delete(sent);
    plan.returned(claim);
    this.o.returned?.();
    // a slot freed meanwhile, owed nothing then, is owed a pass if this claim came back full
    const again = this.again || (this.freedMeanwhile && this.o.owed.any());
    this.again = false;
    if (plan.claiming === 0) this.freedMeanwhile = false;
    if (empty) this.o.idle?.();
    // the pass asked for behind this claim runs now
    if (again && this.o.running()) this.kickBelow(CLAIMS_ON_THE_WIRE);
  }

  /** Sends the claim and places its rows; answers whether it found nothing (false when it threw: not idle, failing). */
  private async claimAndPlace(plan: ClaimPlanner, claim: PlannedClaim): Promise<boolean> {
    const { driver, stats, timers, logger } = this.o;
    let claimed: readonly ClaimedJob[];
    try {
      stats.claims++;
      claimed = await claim.send(driver);
    } catch (error) {
      plan.failed(claim);
      // The database is down or failing over: keep polling at the idle pace and come back by ourselves.
      logger.log('error', 'jobs.claim.failed', {
        workerId: this.o.workerId,
        error: error instanceof Error ? error.message : String(error),
      });
      timers.failed();
      return false;
    }
    announceExhaustedInBackground(claim.exhausted, this.o.registry, logger, this.o.metrics);
    plan.answered(claim, claimed);
    this.o.place(claimed);
    if (claimed.length > 0) timers.found();
    else timers.empty();
    return claimed.length === 0;
  }
}
