import type { EnqueueRequest } from '@ultimat3/jobs';
import { WAKE_DUE_WITHIN_MS, WAKE_SLOT_MS } from '../wake/wake-session';

const SLOT_US = WAKE_SLOT_MS * 1_000;
const DUE_US = WAKE_DUE_WITHIN_MS * 1_000;
/** Queues remembered at most; past it the memo starts afresh (a driver enqueuing to that many queues in turn). */
const MAX_QUEUES = 64;

/**
 * Epoch seconds as an insert statement answers them (`extract(epoch from …)`: numeric text, exact to the
 * microsecond; a number where a server answers a float) in whole microseconds.
 */
export function epochMicros(seconds: string | number): number {
  if (typeof seconds === 'number') return Math.round(seconds * 1_000_000);
  const dot = seconds.indexOf('.');
  if (dot < 0) return Number(seconds) * 1_000_000;
  const whole = Number(seconds.slice(0, dot)) * 1_000_000;
  const fraction = Math.round(Number(`0${seconds.slice(dot)}`) * 1_000_000);
  return seconds.startsWith('-') ? whole - fraction : whole + fraction;
}

/** The millisecond a UUIDv7 id was minted at: its first 48 bits. */
export function idTimeMs(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/**
 * What one driver's single enqueues know of the wake's slots (`SQL_ENQUEUE_INSERT`), so that a created job whose
 * announcement is settled is sent as `SQL_ENQUEUE_QUIET`, without the wake's sub-select.
 *
 * It remembers, per queue, the last WAKE_SLOT_MS slot in which one of this driver's own enqueues committed a row
 * minted (its UUIDv7 id) AND created in the slot and due within WAKE_DUE_WITHIN_MS of its creation — the sibling
 * `SQL_ENQUEUE_INSERT`'s sub-select looks for before it announces — and the database clock of the last answer. Only
 * over a shared executor, where each statement commits on its own before it answers: a row of a transaction still
 * open, or rolled back, proves nothing.
 *
 * It only chooses which statement to send; the quiet statement checks the slot against its own clock and inserts
 * nothing when the guess was wrong (the driver then sends `SQL_ENQUEUE_INSERT`), so a wrong estimate costs a round
 * trip, never a wake. With an injected clock the statement's clock is known exactly; with the database's `now()` it is
 * estimated from the last answer's `created_at` plus the time elapsed since that statement was sent, give or take
 * that statement's round trip.
 */
export class WakeMemo {
  private readonly slots = new Map<string, number>();
  /** The database clock (µs since the epoch) of the last created row this memo learned from; NaN before any. */
  private lastUs = Number.NaN;
  /** When (on {@link elapsed}) that row's statement was sent, and how long it took to answer (ms). */
  private lastSent = 0;
  private lastTrip = 0;

  /** `elapsed`: a monotonic millisecond clock (default `performance.now`), used only to estimate the database's. */
  constructor(private readonly elapsed: () => number = () => performance.now()) {}

  /** The time to stamp a statement with as it is sent, and its answer as it arrives. */
  now(): number {
    return this.elapsed();
  }

  /**
   * The $16 to send `SQL_ENQUEUE_QUIET` with: null for a row due past the wake's window, a remembered slot's first
   * instant (ISO text) for one due within it, or undefined when neither is known: send `SQL_ENQUEUE_INSERT`.
   * `clockMs`: the statement's clock when the driver injects one, else undefined (the database's, estimated).
   */
  guard(
    request: EnqueueRequest,
    clockMs: number | undefined,
    sentAt: number,
  ): string | null | undefined {
    let lo: number;
    let hi: number;
    if (clockMs !== undefined) {
      lo = hi = clockMs * 1_000;
    } else {
      if (Number.isNaN(this.lastUs)) return undefined;
      const at = this.lastUs + (sentAt - this.lastSent) * 1_000;
      const slack = this.lastTrip * 1_000;
      lo = at - slack;
      hi = at + slack;
    }
    if (request.runAt * 1_000 > hi + DUE_US) return null;
    const slot = this.slots.get(request.queue);
    if (slot === undefined || lo < slot * SLOT_US || hi >= (slot + 1) * SLOT_US) return undefined;
    return new Date(slot * WAKE_SLOT_MS).toISOString();
  }

  /**
   * Learns from a row either insert statement created: `createdS` its `created_at` as the statement answered it
   * (epoch seconds), `sentAt` and `answeredAt` on {@link now}. The row's slot is remembered for its queue when it
   * counts as that slot's sibling.
   */
  learn(
    request: EnqueueRequest,
    createdS: string | number,
    sentAt: number,
    answeredAt: number,
  ): void {
    const us = epochMicros(createdS);
    this.lastUs = us;
    this.lastSent = sentAt;
    this.lastTrip = answeredAt - sentAt;
    const slot = Math.floor(us / SLOT_US);
    const due = request.runAt * 1_000 <= us + DUE_US;
    if (!due || Math.floor(idTimeMs(request.id) / WAKE_SLOT_MS) !== slot) return;
    if (this.slots.size >= MAX_QUEUES && !this.slots.has(request.queue)) this.slots.clear();
    this.slots.set(request.queue, slot);
  }
}
