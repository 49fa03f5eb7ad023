import { DriverConnectionLostError, DriverUnavailableError, JobsError } from '@ultimat3/jobs';
import type { Cluster, Redis } from 'ioredis';

/** Client states in which a command would only wait in the offline queue for a server that is not there. */
const DOWN_STATES = new Set(['reconnecting', 'close', 'end']);

/** Failures before the command reached the server: it certainly did not run. */
const NOT_SENT = [
  /^Connection is closed\.?$/,
  /enableOfflineQueue/,
  /ECONNREFUSED/,
  /ENOTFOUND/,
  /EAI_AGAIN/,
];
/** Failures of a connection that was open: the command may have run before the answer was lost. */
const LOST = [/max retries per request/i, /ECONNRESET/, /EPIPE/, /ETIMEDOUT/, /Command timed out/];

const messageOf = (error: unknown): string =>
  error instanceof Error
    ? `${error.message} ${(error as { code?: unknown }).code ?? ''}`
    : String(error);

/** The unavailable error an enqueue answers while the client is not connected. */
function downError(status: string, cause?: unknown): DriverUnavailableError {
  return new DriverUnavailableError(
    `Redis is out of reach (client ${status})`,
    'Enqueue again once Redis is back (the idempotency key makes a repeat safe); check redis.url if it lasts.',
    { cause },
  );
}

/**
 * Maps a failed enqueue: Redis out of reach is `X_DRIVER_UNAVAILABLE` (`DriverUnavailableError` when the script
 * certainly did not run, `DriverConnectionLostError` when it may have), anything else is answered as thrown.
 */
export function enqueueFailure(error: unknown): unknown {
  if (error instanceof JobsError) return error;
  const message = messageOf(error);
  if (NOT_SENT.some((p) => p.test(message))) return downError('disconnected', error);
  if (LOST.some((p) => p.test(message)))
    return new DriverConnectionLostError(message.trim(), error);
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
