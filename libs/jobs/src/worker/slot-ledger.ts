import type { LimitedRun, ProcessLimits } from './limits';

/** Why a run did not get a slot: the per-process cap that refused it. */
export type SlotRefusal = Exclude<ReturnType<ProcessLimits['tryAcquire']>, 'ok'>;

/**
 * A worker's run slots: per served queue, how many it has and how many are busy, with the per-process caps
 * ({@link ProcessLimits}) taken and given back alongside. Rows claimed but not started are not here: the prefetch
 * buffer holds them.
 */
export class SlotLedger {
  private readonly busy = new Map<string, number>();
  private slots: ReadonlyMap<string, number> = new Map();

  /** `limits`: the per-process caps, if any. Serves no queue until {@link SlotLedger.serve}. */
  constructor(private readonly limits: ProcessLimits | undefined) {}

  /** Serves the queues of `slots`, each with its slot count (a worker's start). */
  serve(slots: ReadonlyMap<string, number>): void {
    this.slots = slots;
  }

  /** The served queues with their slot counts. */
  sizes(): ReadonlyMap<string, number> {
    return this.slots;
  }

  /** Whether this worker serves `queue`. */
  serves(queue: string): boolean {
    return this.slots.has(queue);
  }

  /** The served queues, in the order they were configured. */
  queues(): IterableIterator<string> {
    return this.slots.keys();
  }

  /** The slots of `queue` (0 when it is not served). */
  size(queue: string): number {
    return this.slots.get(queue) ?? 0;
  }

  /** Slots over every served queue. */
  total(): number {
    let sum = 0;
    for (const n of this.slots.values()) sum += n;
    return sum;
  }

  /** Free slots of `queue` (its slots less its busy ones). */
  free(queue: string): number {
    return (this.slots.get(queue) ?? 0) - (this.busy.get(queue) ?? 0);
  }

  /** Takes a slot of the run's queue, or names the cap that refused it (then nothing is taken). */
  take(run: LimitedRun): 'ok' | SlotRefusal {
    if (this.limits !== undefined) {
      const verdict = this.limits.tryAcquire(run);
      if (verdict !== 'ok') return verdict;
    }
    this.busy.set(run.queue, (this.busy.get(run.queue) ?? 0) + 1);
    return 'ok';
  }

  /** Gives back the slot (and the caps' places) a run took. */
  give(run: LimitedRun): void {
    this.limits?.release(run);
    this.busy.set(run.queue, (this.busy.get(run.queue) ?? 1) - 1);
  }

  /** Tenants at their per-tenant cap, for a claim to skip; undefined without caps. */
  fullTenants(): string[] | undefined {
    return this.limits?.fullTenants();
  }
}
