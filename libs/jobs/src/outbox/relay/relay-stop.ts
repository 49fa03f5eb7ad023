import type { Clock, TimerHandle } from '../../util/clock';

interface StopWait {
  /** Settles once no pass is in flight. */
  readonly joined: Promise<'joined'>;
  /** Settles at the earliest deadline any stop() gave. */
  readonly deadline: Promise<'deadline'>;
  readonly fire: () => void;
  readonly timers: TimerHandle[];
  reported: boolean;
}

/** The one wait every concurrent `stop()` of a relay shares. */
export interface RelayStopState {
  waiting: StopWait | undefined;
}

/** What {@link relayStop} needs from the relay. */
export interface RelayStopOptions {
  readonly clock: Clock;
  readonly deadlineAt: number | undefined;
  /** The pass in flight (a promise that never rejects), if any. */
  readonly inFlight: () => Promise<void> | undefined;
  /** Told once, when a deadline ended the wait with a pass still in flight. */
  readonly onAbandoned: () => void;
}

/**
 * Joins the pass in flight. Every `stop()` shares one wait, and each deadline given arms its own timer on it, so a
 * deadline binds late — a shutdown landing on a manual stop() bounds the wait already under way — and the earliest wins.
 */
export async function relayStop(state: RelayStopState, options: RelayStopOptions): Promise<void> {
  if (state.waiting === undefined) {
    let fire: () => void = () => undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      fire = () => resolve('deadline');
    });
    const joined = (async () => {
      for (let current = options.inFlight(); current; current = options.inFlight()) await current;
      return 'joined' as const;
    })();
    state.waiting = { joined, deadline, fire, timers: [], reported: false };
  }
  const wait = state.waiting;
  if (options.deadlineAt !== undefined) {
    const ms = Math.max(0, options.deadlineAt - options.clock.now());
    wait.timers.push(options.clock.setTimeout(wait.fire, ms));
  }
  const won = await Promise.race([wait.joined, wait.deadline]);
  for (const timer of wait.timers) timer.cancel();
  if (won === 'deadline' && !wait.reported) {
    wait.reported = true;
    options.onAbandoned();
  }
}
