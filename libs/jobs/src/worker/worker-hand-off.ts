import type { HandOffOffer, WakeHandOff } from '../driver/backend';
import type { ClaimedJob } from '../driver/job-row';
import type { ClaimPlanner } from './claim-planner';
import type { HandBacks } from './hand-backs';
import type { ProcessLimits } from './limits';
import type { PrefetchBuffer } from './prefetch';
import type { SlotLedger } from './slot-ledger';

/** What a worker's hand-off side ({@link workerHandOff}) reads of the worker around it. */
export interface WorkerHandOffOptions {
  readonly workerId: string;
  readonly visibilityTimeoutMs: number;
  readonly ledger: SlotLedger;
  readonly held: PrefetchBuffer;
  readonly limits: ProcessLimits | undefined;
  readonly handBacks: HandBacks;
  /** Per served queue, the job names this worker serves there. */
  readonly served: () => ReadonlyMap<string, readonly string[]>;
  /** The planner once the worker started (its claims on the wire). */
  readonly planner: () => ClaimPlanner | undefined;
  /** Whether the worker still claims. */
  readonly running: () => boolean;
  /** Places rows as a claim's answer (held, then started while slots are free). */
  readonly place: (rows: readonly ClaimedJob[]) => void;
}

/**
 * A worker's side of a backend's hand-off ({@link WakeHandOff}). What it offers and what it takes are both bounded by
 * what it can start at once, so a hand-off never leaves rows waiting in the worker — an idle worker's prefetch target
 * is nothing:
 * - an offer is a queue's free slots less the rows held for it, less what the per-process caps still allow (`perQueue`
 *   per queue; `global`, `perTenant` and `ratePerTenant` shared by every queue, and counted for the worst tenant, since
 *   the rows' tenants are not known yet), and nothing while a claim of its own is on the wire;
 * - a registration is renewed only between the backend's pops, so it can be older than a claim of the worker's own
 *   that filled the slots meanwhile: a handed row is taken only into a slot no held row nor claim on the wire covers,
 *   within the caps. One that meets a claim of the worker's own on the wire waits for the claims out to come back
 *   (their rows placed) and is judged again; any other is handed back at once (uncounted, its run time kept: first in
 *   line again).
 */
export function workerHandOff(o: WorkerHandOffOptions): {
  handOff: WakeHandOff;
  /** Tells every listener the worker went idle (a pass found nothing). */
  idle(): void;
  /** A claim of the worker's own came back: the handed rows that waited for it are judged again. */
  returned(): void;
} {
  return new HandOffSide(o);
}

/** The side {@link workerHandOff} builds: what it offers, what it takes, who hears the worker went idle. */
class HandOffSide {
  readonly handOff: WakeHandOff;
  private readonly listeners = new Set<() => void>();
  /** Handed rows that met a claim of the worker's own on the wire, waiting for the claims out to come back. */
  private waiting: ClaimedJob[] = [];

  constructor(private readonly o: WorkerHandOffOptions) {
    const { listeners } = this;
    // a plain object whose functions need no `this`: a backend (or a spec) may call them detached
    this.handOff = {
      workerId: o.workerId,
      visibilityTimeoutMs: o.visibilityTimeoutMs,
      offers: () => this.offers(),
      takeClaimed: (rows) => this.takeClaimed(rows),
      onIdle(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
  }

  /** Tells every listener the worker went idle (a pass found nothing). */
  idle(): void {
    for (const listener of this.listeners) listener();
  }

  /** A claim of the worker's own came back: the handed rows that waited for it are judged again. */
  returned(): void {
    if (this.waiting.length === 0) return;
    const rows = this.waiting;
    this.waiting = [];
    this.takeClaimed(rows);
  }

  private offers(): HandOffOffer[] {
    const { o } = this;
    if (!o.running() || (o.planner()?.claiming ?? 1) > 0) return [];
    let shared = o.limits?.sharedRoom() ?? Infinity;
    const out: HandOffOffer[] = [];
    for (const [queue, names] of o.served()) {
      const free = Math.min(this.open(queue), shared);
      if (free <= 0 || names.length === 0) continue;
      out.push({ queue, free, names });
      shared -= free;
    }
    return out;
  }

  private takeClaimed(rows: readonly ClaimedJob[]): void {
    const { o } = this;
    if (!o.running()) {
      o.place(rows);
      return;
    }
    let shared = o.limits?.sharedRoom() ?? Infinity;
    // one row (a pop answers one) with room for it: placed as it came, with no tally of the room it leaves
    const lone = rows.length === 1 ? rows[0] : undefined;
    if (lone !== undefined && shared > 0 && this.open(lone.queue) > 0) {
      o.place(rows);
      return;
    }
    const room = new Map<string, number>();
    const taken: ClaimedJob[] = [];
    const back: ClaimedJob[] = [];
    for (const row of rows) {
      const left = room.get(row.queue) ?? this.open(row.queue);
      if (left > 0 && shared > 0) {
        taken.push(row);
        room.set(row.queue, left - 1);
        shared--;
      } else {
        // the slot may be a claim's on the wire that comes back short: judged again once the claims out are back
        if ((o.planner()?.asking(row.queue) ?? 0) > 0) this.waiting.push(row);
        else back.push(row);
        room.set(row.queue, left);
      }
    }
    if (back.length > 0) o.handBacks.release(back);
    if (taken.length > 0) o.place(taken);
  }

  /** Slots of `queue` nothing covers: free, less the held rows and what claims on the wire asked for. */
  private open(queue: string): number {
    const { o } = this;
    return Math.min(
      o.ledger.free(queue) - o.held.held(queue) - (o.planner()?.asking(queue) ?? 0),
      o.limits?.queueRoom(queue) ?? Infinity,
    );
  }
}
