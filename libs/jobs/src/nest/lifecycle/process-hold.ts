import { MAX_TIMER_MS } from '../../util/clock';

/** A handle that keeps the event loop, and so the process, alive until released. */
export interface ProcessHold {
  /** Lets the process end once nothing else keeps it busy. Idempotent. */
  release(): void;
}

/**
 * Holds the process open with one ref'd timer. Every timer of the runtime is unref'd (a script or a test that is done
 * must be able to end), and an application context has no server socket: without this, a worker on the memory driver
 * exits 0 right after boot, and one on PostgreSQL exits 0 as soon as the server restarts and its sockets close — an
 * exit a supervisor does not restart.
 */
export function holdProcess(): ProcessHold {
  const timer = setInterval(() => undefined, MAX_TIMER_MS);
  return { release: () => clearInterval(timer) };
}

/** The signals Nest re-raises after its shutdown hooks ran (`enableShutdownHooks()` without `useProcessExit`). */
const REISSUED = new Set(['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2', 'SIGBREAK']);
const exitingOn = new Set<string>();

/**
 * After a shutdown `signal` started has drained, Nest sends the same signal to the process again and Node's default
 * action ends it BY the signal: 143 in a shell, the same as a kill that skipped the drain. This catches that re-raise
 * and exits with `process.exitCode` (0 unless someone set it) at the moment the signal would have ended the process.
 *
 * Armed only while Nest itself listens for `signal` (the app called `enableShutdownHooks`), at most once per signal,
 * and it stands aside when another listener is still there when the signal arrives: that listener decides.
 */
export function exitCleanlyOnReraise(signal: string | undefined): void {
  if (signal === undefined || !REISSUED.has(signal) || exitingOn.has(signal)) return;
  if (process.listenerCount(signal) === 0) return;
  exitingOn.add(signal);
  process.once(signal, () => {
    exitingOn.delete(signal);
    if (process.listenerCount(signal) === 0) process.exit();
  });
}
