import type { Clock, TimerHandle } from '@ultimat3/jobs';

/**
 * Where every process of one episode reads its driven time from: the episode's first driven instant, how many driven
 * ms pass per real ms, and the real moment the clocks start (the spec's reading of the system-wide monotonic clock and
 * of its own wall clock at that moment). Plain JSON: the spec sends it to each scheduler process.
 */
export interface FastClockPlan {
  /** The driven instant at the start (epoch ms): e.g. 00:30 local on a switch day. */
  readonly startMs: number;
  /** Driven ms per real ms. */
  readonly speed: number;
  /**
   * One reading of the spec's clocks at one moment: `process.hrtime.bigint()` as a decimal string (CLOCK_MONOTONIC is
   * system-wide, and libfaketime leaves it alone with `DONT_FAKE_MONOTONIC=1`) and `Date.now()` (the true wall time).
   * A process's skew is its own `Date.now()` against this pair.
   */
  readonly reference: { readonly monoNs: string; readonly wallMs: number };
  /** The monotonic reading (as `reference.monoNs`) at which the driven time starts; absent, it has not started. */
  readonly epochMonoNs?: string;
}

/** A running fast clock: the scheduler's `Clock`, plus what the process can report about it. */
export interface FastClock extends Clock {
  /** Starts the driven time at the monotonic reading `epochMonoNs` (before, it holds at `startMs` plus the skew). */
  run(epochMonoNs: string): void;
  /** This process's wall clock minus the spec's, read once at construction (libfaketime's offset when skewed). */
  readonly skewMs: number;
}

/** Real ms from a monotonic reading to now (0 before it, and when there is none). */
function elapsedRealMs(fromMonoNs: bigint | undefined): number {
  if (fromMonoNs === undefined) return 0;
  return Math.max(0, Number(process.hrtime.bigint() - fromMonoNs) / 1e6);
}

/** This process's `Date.now()` minus the true wall time the spec's reading implies now, to the ms. */
function measureSkewMs(reference: FastClockPlan['reference']): number {
  return Math.round(Date.now() - (reference.wallMs + elapsedRealMs(BigInt(reference.monoNs))));
}

/**
 * A driven clock for a scheduler PROCESS (the test entry hands it to `jobScheduler({ clock })`; nothing in the product
 * changes): `startMs + speed × (real ms since the epoch)`, PLUS the process's own wall-clock error.
 * The elapsed part reads the monotonic clock, which libfaketime leaves alone (`DONT_FAKE_MONOTONIC=1`); the error is
 * `Date.now()` minus the true wall time, read once when the clock is built (libfaketime's offset is constant) — so a process started under `FAKETIME=+30s` runs 30 s
 * ahead of the others on the driven axis, exactly as its system clock does in real time, while every process ticks at
 * the same rate. Timers sleep `driven ms / speed` real ms and re-check, so they fire on driven time.
 */
export function fastClock(plan: FastClockPlan): FastClock {
  let epochMono: bigint | undefined;
  const parked = new Set<() => void>();
  const skewMs = measureSkewMs(plan.reference);
  const now = (): number =>
    Math.floor(plan.startMs + elapsedRealMs(epochMono) * plan.speed + skewMs);

  const clock: FastClock = {
    now,
    skewMs,
    run(monoNs) {
      epochMono = BigInt(monoNs);
      for (const wake of [...parked]) wake();
    },
    setTimeout(fn, ms): TimerHandle {
      const due = now() + Math.max(0, ms);
      let handle: NodeJS.Timeout | undefined;
      let cancelled = false;
      const check = (): void => {
        parked.delete(check);
        if (cancelled) return;
        const left = due - now();
        if (left <= 0) {
          fn();
          return;
        }
        if (epochMono === undefined) {
          parked.add(check); // the driven time does not move before the start
          return;
        }
        handle = setTimeout(check, Math.max(1, Math.ceil(left / plan.speed)));
        handle.unref();
      };
      handle = setTimeout(check, 0);
      handle.unref();
      return {
        cancel() {
          cancelled = true;
          parked.delete(check);
          clearTimeout(handle);
        },
      };
    },
  };
  if (plan.epochMonoNs !== undefined) clock.run(plan.epochMonoNs);
  return clock;
}
