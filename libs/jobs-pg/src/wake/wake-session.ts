/** The channel every wake notification travels on. Its payload is a queue name and nothing else. */
export const WAKE_CHANNEL = 'x_jobs_wake';
/**
 * The channel a handed enqueue announces its slot on (`SQL_ENQUEUE_HAND_OFF`), its payload a queue name: the row that
 * announces is already claimed for the worker it was handed to, so there is nothing to claim at once — only the rows of
 * its slot that skip their own announcement, which a listener sweeps for {@link WAKE_SWEEP_MS} after it.
 */
export const WAKE_SWEEP_CHANNEL = 'x_jobs_wake_sweep';
/**
 * The throttle slot: an enqueue announces its queue unless a committed row of that queue was minted and created in the
 * same slot, or a transaction in flight holds the slot's wake lock (`SQL_ENQUEUE`, `SQL_ENQUEUE_MANY`). The SQL spells
 * it as a literal; a spec holds the two equal.
 */
export const WAKE_SLOT_MS = 5;
/**
 * The class half of the two-int advisory key the enqueue statements take (`pg_try_advisory_xact_lock(class,
 * hashtext(queue) # slot)`) so that one transaction of a concurrent wave announces a queue's slot. The two-int key
 * space is shared with the application: keep this class out of your own advisory locks. ('xjwk' in ASCII.)
 */
export const WAKE_LOCK_CLASS = 2_020_243_307;
/**
 * How long after a row's slot ends its commit may land and still be found by the woken worker's sweep: a WAL flush
 * (~1 ms quiet, several on a loaded machine) with room to spare. A later commit is found by the next wake or poll.
 */
export const WAKE_COMMIT_MARGIN_MS = 10;
/**
 * When the woken worker passes once more after a wake (`JobWorker.signalEnqueued`'s `sweepAfterMs`): the rows of the
 * announced slot that skipped the announcement were enqueued within {@link WAKE_SLOT_MS} of the announcing one and
 * have committed {@link WAKE_COMMIT_MARGIN_MS} later.
 */
export const WAKE_SWEEP_MS = WAKE_SLOT_MS + WAKE_COMMIT_MARGIN_MS;
/** Only rows due this long of the enqueue are announced; later ones start on the poll. */
export const WAKE_DUE_WITHIN_MS = 1_000;

/** One notification as `pg` delivers it. */
export interface WakeNotification {
  /** The channel it was sent on. */
  readonly channel: string;
  /** The payload, when one was sent. */
  readonly payload?: string;
}

/**
 * The part of a `pg.Client` the wake holds its LISTEN session on. Structural, so this package never imports `pg` at
 * run time; a `pg.Client` satisfies it. It must be a dedicated, direct (or session-pooled) connection: a
 * transaction-pooling proxy hands the LISTEN's server connection to someone else and delivers nothing.
 */
export interface WakeSession {
  /** Opens the connection. */
  connect(): Promise<unknown>;
  /** Runs one statement (`LISTEN`, `UNLISTEN`, the probe's `pg_notify`). */
  query(text: string, values?: readonly unknown[]): Promise<unknown>;
  /** Subscribes to the session's notifications. */
  on(event: 'notification', listener: (message: WakeNotification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  /** Removes the listeners of `event`, or of every event. */
  removeAllListeners(event?: string): unknown;
  /** Closes the connection. */
  end(): Promise<unknown>;
}

/** What dials a fresh session: a factory, or a `pg.Client` whose class and parameters dial the next one. */
export type WakeListener = WakeSession | (() => WakeSession | Promise<WakeSession>);

interface ClonableClient {
  readonly constructor: new (config: unknown) => WakeSession;
  readonly connectionParameters?: unknown;
}

/**
 * Turns `listener` into a dialler. A `pg.Client` cannot connect twice, so the first dial answers the client given
 * and each re-dial builds a new one of its class from its connection parameters (what `pg.Client` keeps of its config).
 * A session of another shape that was given as an instance is dialled once: pass a factory to have it re-dialled.
 */
export function dialler(listener: WakeListener): () => Promise<WakeSession | undefined> {
  if (typeof listener === 'function') return async () => listener();
  let first: WakeSession | undefined = listener;
  const clonable = listener as unknown as ClonableClient;
  return async () => {
    if (first !== undefined) {
      const session = first;
      first = undefined;
      return session;
    }
    if (clonable.connectionParameters === undefined) return undefined;
    return new clonable.constructor(clonable.connectionParameters);
  };
}

/** Connects `session`, accepting one the caller connected already. */
export async function connectSession(session: WakeSession): Promise<void> {
  try {
    await session.connect();
  } catch (error) {
    // pg.Client refuses a second connect(): the caller handed over a live client, which is what we need
    if (!/already been connected/i.test(error instanceof Error ? error.message : '')) throw error;
  }
}
