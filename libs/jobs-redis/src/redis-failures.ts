import {
  DriverConnectionLostError,
  DriverUnavailableError,
  JobsError,
  SettleUnavailableError,
  type ConnectionFailure,
} from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';

/** Client states in which a command would only wait in the offline queue for a server that is not there. */
const DOWN_STATES = new Set(['reconnecting', 'close', 'end']);

/** Failures before the command reached the server: it certainly did not run. */
const NOT_SENT = [/enableOfflineQueue/, /ECONNREFUSED/, /ENOTFOUND/, /EAI_AGAIN/];
/** Failures of a connection that was open: the command may have run before the answer was lost. */
const LOST = [
  // ioredis fails its offline queue and the commands awaiting a reply alike with this one message at a close
  /^Connection is closed\.?$/,
  /max retries per request/i,
  /ECONNRESET/,
  /EPIPE/,
  /ETIMEDOUT/,
  /Command timed out/,
];

/**
 * Writes the server refused for its own state before the command wrote anything: memory at `maxmemory` (the
 * `noeviction` policy the driver requires answers OOM), a replica after a failover (READONLY, MASTERDOWN), a restart
 * loading its data (LOADING), a script past its time (BUSY), a cluster moving slots (CLUSTERDOWN, TRYAGAIN), too few
 * replicas for `min-replicas-to-write` (NOREPLICAS). A script is refused at its first write, so nothing of it landed.
 */
const REFUSED = /^(OOM|READONLY|MASTERDOWN|LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|NOREPLICAS) /;

/** The error's message and its `code` (an errno name) after it, trimmed: `^…$` patterns read a message alone too. */
const messageOf = (error: unknown): string =>
  (error instanceof Error
    ? `${error.message} ${(error as { code?: unknown }).code ?? ''}`
    : String(error)
  ).trim();

/** The unavailable error an enqueue answers while the client is not connected. */
function downError(status: string, cause?: unknown): DriverUnavailableError {
  return new DriverUnavailableError(
    `Redis is out of reach (client ${status})`,
    'Enqueue again once Redis is back (the idempotency key makes a repeat safe); check redis.url if it lasts.',
    { cause },
  );
}

/** The unavailable error an enqueue answers when the server refused the write for its own state (see REFUSED). */
function refusedError(cause: unknown): DriverUnavailableError {
  return new DriverUnavailableError(
    `Redis refused the write (${messageOf(cause)})`,
    'Enqueue again once Redis takes writes (the idempotency key makes a repeat safe): OOM is maxmemory reached, READONLY or MASTERDOWN a failover under way, LOADING a restart.',
    { cause },
  );
}

/**
 * Whether `error` is Redis out of reach rather than a command's own failure: `'not-sent'` when the command certainly
 * did not run, `'lost'` when its connection dropped under it, undefined for anything else.
 */
export function connectionFailure(error: unknown): ConnectionFailure | undefined {
  if (error instanceof JobsError) return undefined;
  const message = messageOf(error);
  if (NOT_SENT.some((p) => p.test(message))) return 'not-sent';
  if (LOST.some((p) => p.test(message))) return 'lost';
  return undefined;
}

/**
 * Maps a failed enqueue: Redis out of reach is `X_DRIVER_UNAVAILABLE` (`DriverUnavailableError` when the script
 * certainly did not run, `DriverConnectionLostError` when it may have), and so is a write the server refused for its
 * own state (OOM, READONLY, LOADING, …: nothing was written) — never a raw reply error, which an outbox relay would
 * charge to the row and quarantine it for. Anything else is answered as thrown.
 */
export function enqueueFailure(error: unknown): unknown {
  if (!(error instanceof JobsError) && REFUSED.test(messageOf(error))) return refusedError(error);
  const kind = connectionFailure(error);
  if (kind === 'not-sent') return downError('disconnected', error);
  if (kind === 'lost') return new DriverConnectionLostError(messageOf(error), error);
  return error;
}

/**
 * Wraps an enqueue so Redis out of reach fails it at once with `X_DRIVER_UNAVAILABLE`: while the client reconnects the
 * call is refused before anything is sent, rather than parked in ioredis' offline queue for a server that may not come
 * back; a failure on the wire is mapped by {@link enqueueFailure}.
 */
export function mapConnectionFailures<A extends unknown[], R>(
  client: Redis | Cluster,
  enqueue: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    if (DOWN_STATES.has(client.status)) throw downError(client.status);
    try {
      return await enqueue(...args);
    } catch (error) {
      throw enqueueFailure(error);
    }
  };
}

/**
 * Maps a failed batch of acks: Redis out of reach (the command refused before it was sent, or its connection lost
 * under it) is `X_DRIVER_UNAVAILABLE`, and so is a write the server refused for its own state (OOM, READONLY, …:
 * refused at the script's first write, nothing settled), so the worker's ack batcher fails the batch at once (each
 * run sends its own again while its lease lasts) instead of resending every ack of it one by one into the outage.
 * Anything else is answered as thrown. A command parked in ioredis' offline queue while the client reconnects is
 * left to it: it is sent once Redis is back.
 */
export function settleFailure(error: unknown): unknown {
  if (!(error instanceof JobsError) && REFUSED.test(messageOf(error))) {
    return new SettleUnavailableError(
      'Redis',
      `it refused the write: ${messageOf(error)}`,
      'not-sent',
      error,
    );
  }
  const kind = connectionFailure(error);
  return kind === undefined
    ? error
    : new SettleUnavailableError('Redis', messageOf(error), kind, error);
}
