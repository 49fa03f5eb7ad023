import type { Clock, TimerHandle } from '../util/clock';
import { DUE_TIMER_HORIZON_MS } from './worker-options';

/** What {@link DueTimers} needs. */
export interface DueTimersOptions {
  readonly clock: Clock;
  /** The poll interval while there is work: the wait after a claim that found rows. */
  readonly floorMs: number;
  /** The idle ceiling the wait doubles up to, read each time (it rises while a proven wake is live). */
  readonly ceilingMs: () => number;
  /** While `holding()`, no pass is armed further out than this: held rows must not go stale unchecked. */
  readonly holdMaxMs: number;
  readonly holding: () => boolean;
  /** Runs a pass (the worker's kick). */
  readonly pass: () => void;
}

/** How many due times a worker keeps at most: past this, the latest are left to the poll. */
export const MAX_DUE_TIMES = 4_096;

/**
 * When the worker's next pass runs: the poll timer with its back-off (the floor after a claim that found rows, doubled
 * after an empty or failed one up to the idle ceiling, back to the floor on a wake), the sweep after a throttled wake
 * ({@link DueTimers.woken}), and a pass at each time a row handed back falls due (a retry's back-off, a step's sleep),
 * so it starts on time rather than at the idle poll. One timer serves them all, armed at the earliest due time but
 * never further out than {@link DUE_TIMER_HORIZON_MS}: a sleep of days hops a timer a minute at a time (no statement)
 * and never meets setTimeout's 24.8-day limit. Arms nothing before `start()` or after `stop()`.
 */
export class DueTimers {
  private running = false;
  private wait: number;
  private poll: TimerHandle | undefined;
  /** When the armed poll fires. */
  private pollAt = 0;
  /** When rows this worker handed back fall due, earliest first (at most {@link MAX_DUE_TIMES}): each gets its pass. */
  private readonly dueAt: number[] = [];
  /** The one due timer: the due time it serves and when it fires (earlier, by the horizon, for a far-off time). */
  private due: { at: number; fireAt: number; handle: TimerHandle } | undefined;
  /** The sweep pass: when it is due (pushed to the latest wake that asked for one) and its ONE timer. */
  private sweepAt = 0;
  private sweep: TimerHandle | undefined;

  constructor(private readonly o: DueTimersOptions) {
    this.wait = o.floorMs;
  }

  /** The current wait between two passes. */
  get waitMs(): number {
    return this.wait;
  }

  start(): void {
    this.running = true;
  }

  /** Cancels every timer; arms none from here. */
  stop(): void {
    this.running = false;
    this.cancelPoll();
    this.due?.handle.cancel();
    this.due = undefined;
    this.dueAt.length = 0;
    this.sweep?.cancel();
    this.sweep = undefined;
  }

  /** Cancels the armed poll. */
  cancelPoll(): void {
    this.poll?.cancel();
    this.poll = undefined;
  }

  /**
   * Arms the next pass after the current wait — or keeps the poll armed when it fires at most an eighth of that
   * earlier: a busy worker asks for this after every run that frees a slot, and re-arming a timer each time cost ~0.5 KB
   * and a timer-list insert a run. What a claim finds still re-arms the poll to the exact wait.
   */
  pollLater(): void {
    const next = this.nextPollMs(this.wait);
    if (this.poll !== undefined && this.running) {
      const early = this.o.clock.now() + next - this.pollAt;
      if (early >= 0 && early <= next / 8) return;
    }
    this.pollIn(this.wait);
  }

  /** A claim found rows: the next pass comes after the floor, and so does every wait until one finds none. */
  found(): void {
    this.wait = this.o.floorMs;
    this.pollIn(this.wait);
  }

  /** A claim found nothing: the next pass comes after the wait, and the wait after it doubles. */
  empty(): void {
    this.pollIn(this.wait);
    this.wait = Math.min(this.wait * 2, this.o.ceilingMs());
  }

  /** A claim failed (the database is down or failing over): back off, and come back by ourselves. */
  failed(): void {
    this.wait = Math.min(this.wait * 2, this.o.ceilingMs());
    this.pollIn(this.wait);
  }

  /**
   * A wake: the pass it runs is followed at the floor again. A wake that also stands for rows other transactions
   * commit up to `sweepAfterMs` later (a throttled announcement: the rows of its slot that skipped theirs) gets a sweep
   * pass then. ONE timer serves every such wake: a later wake pushes the sweep out rather than arming another, as
   * each wake runs its own pass at once.
   */
  woken(sweepAfterMs?: number): void {
    this.wait = this.o.floorMs;
    if (sweepAfterMs === undefined || !this.running) return;
    const now = this.o.clock.now();
    this.sweepAt = Math.max(this.sweepAt, now + Math.max(0, sweepAfterMs));
    if (this.sweep === undefined) this.armSweep(this.sweepAt - now);
  }

  /**
   * A sweep alone (no pass now): rows may commit within `sweepAfterMs`, so a pass runs that long from now. Kept as a
   * due time, each with its own pass: unlike {@link DueTimers.woken}'s sweep, a later signal never pushes it out —
   * that one is safe to push only because every wake also passes at once, and a steady stream of sweeps alone would
   * otherwise keep the first one from ever running.
   */
  sweepIn(sweepAfterMs: number): void {
    this.dueAtTime(this.o.clock.now() + Math.max(0, sweepAfterMs));
  }

  /**
   * A row falls due at `at`: it gets a pass then. Every such time is kept, not only the earliest: a second retry due
   * later must not wait for the idle ceiling either. Past {@link MAX_DUE_TIMES} the latest time is dropped (its row
   * is found by a poll, as any other worker's would be).
   */
  dueAtTime(at: number): void {
    if (!this.running) return;
    const i = this.dueAt.findIndex((t) => t >= at);
    if (i === -1) this.dueAt.push(at);
    else if (this.dueAt[i] !== at) this.dueAt.splice(i, 0, at);
    if (this.dueAt.length > MAX_DUE_TIMES) this.dueAt.pop();
    this.armNextDue();
  }

  /** Held rows go stale after the heartbeat interval: while any are held, a pass comes by before they could. */
  private nextPollMs(ms: number): number {
    return this.o.holding() ? Math.min(ms, this.o.holdMaxMs) : ms;
  }

  /** Arms the poll `ms` from now (sooner while rows are held), in place of the one armed. */
  private pollIn(ms: number): void {
    this.cancelPoll();
    if (!this.running) return;
    const next = this.nextPollMs(ms);
    this.pollAt = this.o.clock.now() + next;
    this.poll = this.o.clock.setTimeout(() => {
      this.poll = undefined;
      this.o.pass();
    }, next);
  }

  private armSweep(ms: number): void {
    this.sweep = this.o.clock.setTimeout(() => {
      this.sweep = undefined;
      const left = this.sweepAt - this.o.clock.now();
      if (left > 0) return this.armSweep(left); // a later wake pushed it out
      this.o.pass();
    }, ms);
  }

  private armNextDue(): void {
    const next = this.dueAt[0];
    if (next === undefined || !this.running || this.due?.at === next) return;
    this.due?.handle.cancel();
    const { clock } = this.o;
    const delay = Math.min(Math.max(0, next - clock.now()), DUE_TIMER_HORIZON_MS);
    this.due = {
      at: next,
      fireAt: clock.now() + delay,
      handle: clock.setTimeout(() => this.fireDue(), delay),
    };
  }

  private fireDue(): void {
    const hop = this.due !== undefined && this.due.fireAt < this.due.at;
    this.due = undefined;
    const now = this.o.clock.now();
    // a hop towards a far-off time: nothing is due yet, re-arm without a pass
    if (hop && (this.dueAt[0] ?? Infinity) > now) return this.armNextDue();
    while (this.dueAt.length > 0 && (this.dueAt[0] ?? 0) <= now) this.dueAt.shift();
    this.wait = this.o.floorMs;
    this.o.pass();
    this.armNextDue();
  }
}
