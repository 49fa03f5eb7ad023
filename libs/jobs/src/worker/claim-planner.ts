import {
  claimAndRescue,
  type ClaimOptions,
  type ClaimSlot,
  type JobDriver,
  type RescueRequest,
} from '../driver/job-driver';
import type { ClaimedJob, JobRow } from '../driver/job-row';
import type { OwedQueues } from './owed-queues';
import { PREFETCH_PER_SLOT, type PrefetchBuffer } from './prefetch';
import type { RescueCadence } from './rescue-cadence';
import type { SlotLedger } from './slot-ledger';
import type { WorkerPresence } from './worker-presence';

/** What a {@link ClaimPlanner} reads. */
export interface ClaimPlannerOptions {
  readonly workerId: string;
  readonly visibilityTimeoutMs: number;
  /** The worker's slots and caps. */
  readonly ledger: SlotLedger;
  /** Per served queue, the job names this worker serves there (`ClaimSlot.names`). */
  readonly served: ReadonlyMap<string, readonly string[]>;
  /** The rows claimed ahead and not started yet. */
  readonly held: PrefetchBuffer;
  readonly rescues: RescueCadence;
  /** Whether claims take rows ahead of the free slots (`JobWorkerOptions.claimAhead`). */
  readonly claimAhead: boolean;
  /** Job names whose exhausted rows are buried `failed` (read per rescuing claim: the registry may grow). */
  readonly dropExhausted: () => ReadonlySet<string>;
  /** The worker's registry presence, whose due beats ride its claims (`ClaimOptions.presence`); absent: none. */
  readonly presence?: Pick<WorkerPresence, 'carry' | 'carried'>;
  /** The queues owed a claim: a claim sent clears those it asks, one that comes back full or threw owes them again. */
  readonly owed: OwedQueues;
}

/** What a claim is sent to: the driver's claim, rescue and (when it has one) claimRescuing. */
export type RescuingDriver = Pick<JobDriver, 'claim' | 'rescue' | 'claimRescuing'>;

/**
 * A claim the planner sent: its options, when it was sent, the rescue it carries (when due), and the rows that rescue
 * buried once it answered.
 */
export class PlannedClaim {
  /** The rows the claim's rescue buried (lease lapsed on the final attempt): its `RescueResult.buried`. */
  exhausted: readonly JobRow[] = [];
  /** Whether the claim threw (`ClaimPlanner.failed`). */
  threw = false;

  constructor(
    readonly sentAt: number,
    /** The claim. */
    readonly options: ClaimOptions,
    /** The rescue this claim carries, or undefined for a claim of waiting rows only. */
    readonly rescue: RescueRequest | undefined,
  ) {}

  /**
   * Sends the claim: a rescuing one through {@link claimAndRescue} (the driver's `claimRescuing`, one round trip),
   * keeping what its rescue buried in {@link PlannedClaim.exhausted}; any other as `driver.claim`.
   */
  send(driver: RescuingDriver): Promise<readonly ClaimedJob[]> {
    // not async: a claim between rescues (a busy worker's every claim but one a second) allocates no promise of its own
    return this.rescue === undefined
      ? driver.claim(this.options)
      : this.rescuing(driver, this.rescue);
  }

  private async rescuing(
    driver: RescuingDriver,
    rescue: RescueRequest,
  ): Promise<readonly ClaimedJob[]> {
    const { claimed, rescued } = await claimAndRescue(driver, this.options, rescue);
    this.exhausted = rescued.buried;
    return claimed;
  }
}

/**
 * Decides what each claim asks for: which queues, how many rows for free slots (`limit`) and how many ahead of them
 * (`ahead`), the names served, the tenants to skip, whether it rescues lapsed leases and whether it
 * carries the worker's due registry beat. It also
 * counts the claims on the wire and the rows they asked each queue for, which count as held until they return.
 */
export class ClaimPlanner {
  /** Claims sent and not yet returned. */
  claiming = 0;
  private readonly asked = new Map<string, number>();

  constructor(private readonly o: ClaimPlannerOptions) {}

  /**
   * The claim to send at `now`, counted as on the wire; undefined when no queue needs one.
   */
  plan(now: number): PlannedClaim | undefined {
    const slots = this.slots(now);
    if (slots.length === 0) return undefined;
    this.claiming++;
    for (const slot of slots) this.count(slot, 1);
    const { o } = this;
    o.owed.sent(
      slots.map((slot) => slot.queue),
      this.claimable(),
    );
    const excludeTenants = o.ledger.fullTenants();
    const presence = o.presence?.carry(now);
    const rescue = o.rescues.due(now);
    return new PlannedClaim(
      now,
      {
        workerId: o.workerId,
        slots,
        visibilityTimeoutMs: o.visibilityTimeoutMs,
        ...(excludeTenants === undefined ? {} : { excludeTenants }),
        ...(presence === undefined ? {} : { presence }),
      },
      rescue ? { dropExhausted: o.dropExhausted() } : undefined,
    );
  }

  /** Rows the claims on the wire asked of `queue` (slots they will fill when they answer). */
  asking(queue: string): number {
    return this.asked.get(queue) ?? 0;
  }

  /** A claim `plan` gave came back, answered or not: its rows no longer count as on their way. */
  returned(claim: PlannedClaim): void {
    this.claiming--;
    for (const slot of claim.options.slots) this.count(slot, -1);
    // the beat it carried landed with it, or is due again for the next claim
    if (claim.options.presence !== undefined) this.o.presence?.carried(claim.sentAt, !claim.threw);
  }

  /**
   * A claim `plan` gave answered `claimed`: a queue it got all it asked of may hold more, and one whose tenants at
   * their cap it skipped holds theirs — both are owed a claim again.
   */
  answered(claim: PlannedClaim, claimed: readonly ClaimedJob[]): void {
    const skipped = claim.options.excludeTenants !== undefined;
    for (const slot of claim.options.slots) {
      let got = 0;
      for (const row of claimed) if (row.queue === slot.queue) got++;
      if (skipped || got >= slot.limit + (slot.ahead ?? 0)) this.o.owed.owe(slot.queue);
    }
  }

  /**
   * A claim `plan` gave threw: its queues are owed a claim again; if it was to rescue, the next claim rescues; a beat
   * it carried did not land.
   */
  failed(claim: PlannedClaim): void {
    claim.threw = true;
    for (const slot of claim.options.slots) this.o.owed.owe(slot.queue);
    if (claim.rescue !== undefined) this.o.rescues.failed(claim.sentAt);
  }

  /**
   * What one claim asks each queue for: its free slots no held row covers, plus what tops the held rows up to the
   * prefetch target — asked only once a third of it is missing, so a busy queue is not claimed row by row. Rows a
   * claim on the wire asked for count as held, so a second claim goes out while the first is still out only when the
   * buffer runs low: claims overlap instead of queueing behind each other.
   */
  private slots(now: number): ClaimSlot[] {
    const { ledger, held } = this.o;
    const want: ClaimSlot[] = [];
    for (const [queue, names] of this.o.served) {
      // a queue no registered job names has nothing this worker could run
      if (names.length === 0) continue;
      const free = Math.max(0, ledger.free(queue));
      // rows a claim on the wire asked for count as held: they are on their way
      const holding = held.held(queue) + (this.asked.get(queue) ?? 0);
      const idle = Math.max(0, free - holding);
      // Rows held (claimed, not started) by a worker that dies lapse as counted attempts: the claim takes ahead only
      // rows it does not put on their final attempt (`ahead`), at most PREFETCH_PER_SLOT per slot of the queue.
      const target = this.o.claimAhead
        ? Math.min(
            held.target(queue, now, ledger.size(queue)),
            PREFETCH_PER_SLOT * ledger.size(queue),
          )
        : 0;
      const short = Math.max(0, target - Math.max(0, holding - free));
      // a second claim on the wire is for the buffer only: a slot that frees meanwhile waits for a claim to return
      if ((idle > 0 && this.claiming === 0) || (target > 0 && short * 3 >= target)) {
        want.push(
          short > 0 ? { queue, limit: idle, ahead: short, names } : { queue, limit: idle, names },
        );
      }
    }
    return want;
  }

  /** The served queues a claim can ask: those some registered job names. */
  private *claimable(): Iterable<string> {
    for (const [queue, names] of this.o.served) if (names.length > 0) yield queue;
  }

  private count(slot: ClaimSlot, sign: 1 | -1): void {
    const rows = slot.limit + (slot.ahead ?? 0);
    this.asked.set(slot.queue, (this.asked.get(slot.queue) ?? 0) + sign * rows);
  }
}
