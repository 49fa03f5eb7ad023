import {
  DriverConnectionLostError,
  DriverUnavailableError,
  JobsError,
  SettleUnavailableError,
  type ConnectionFailure,
  type DatabaseUnreachableReason,
} from '@ultimat3/jobs';

/** What a thrown value says: its `code` (a Node `errno` name or a SQLSTATE) and message, through an AggregateError. */
function facts(error: unknown): { code: string | undefined; message: string } {
  if (typeof error !== 'object' || error === null)
    return { code: undefined, message: String(error) };
  const { code, message, errors } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
  };
  // Node reports a dual-stack `localhost` that refused on both addresses as an AggregateError
  const inner = Array.isArray(errors) && errors.length > 0 ? facts(errors[0]) : undefined;
  return {
    code: typeof code === 'string' ? code : inner?.code,
    message: typeof message === 'string' && message !== '' ? message : (inner?.message ?? ''),
  };
}

/** Failures before the statement reached the server: it certainly did not run. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '57P03', // cannot_connect_now: the server is starting up or shutting down
  '53300', // too_many_connections
  '3D000', // invalid_catalog_name: no such database
  '28000', // invalid_authorization_specification
  '28P01', // invalid_password
]);
const NOT_SENT_MESSAGES = [
  /^timeout exceeded when trying to connect/,
  /^Connection terminated due to connection timeout/,
  /^timeout expired/,
  /is not queryable$/,
  /^Cannot use a pool after calling end/,
  /is not currently accepting connections/, // 55000 at connect: the database refuses sessions
];

/** Failures of a session that was open: the statement may have run, and committed, before the answer was lost. */
const LOST_CODES = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02']);
const LOST_MESSAGES = [/^Connection terminated( unexpectedly)?$/];

/**
 * Whether `error` is the database being out of reach rather than a statement's own failure: `'not-sent'` when the
 * statement certainly did not run, `'lost'` when the session died under it, undefined for anything else.
 */
export function connectionFailure(error: unknown): ConnectionFailure | undefined {
  const { code, message } = facts(error);
  if (code !== undefined && NOT_SENT_CODES.has(code)) return 'not-sent';
  if (NOT_SENT_MESSAGES.some((pattern) => pattern.test(message))) return 'not-sent';
  if (code !== undefined && (LOST_CODES.has(code) || code.startsWith('08'))) return 'lost';
  if (LOST_MESSAGES.some((pattern) => pattern.test(message))) return 'lost';
  return undefined;
}

/**
 * Maps a failed enqueue: the database out of reach is `X_DRIVER_UNAVAILABLE` (`DriverUnavailableError` when the row
 * certainly was not written, `DriverConnectionLostError` when it may have been), anything else is answered as thrown.
 */
export function enqueueFailure(error: unknown): unknown {
  const kind = connectionFailure(error);
  if (kind === undefined) return error;
  const { message } = facts(error);
  if (kind === 'lost') return new DriverConnectionLostError(message, error);
  return new DriverUnavailableError(
    `PostgreSQL is out of reach (${message})`,
    'Enqueue again once the database is back (the idempotency key makes a repeat safe); check postgres.url (DATABASE_URL) if it lasts.',
    { cause: error },
  );
}

/** Wraps an enqueue function so that a database out of reach fails it with `X_DRIVER_UNAVAILABLE`. */
export function mapConnectionFailures<A extends unknown[], R>(
  enqueue: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await enqueue(...args);
    } catch (error) {
      throw enqueueFailure(error);
    }
  };
}

/**
 * Maps a failed batch of acks: the database out of reach is `X_DRIVER_UNAVAILABLE`, so the worker's ack batcher fails
 * the batch's acks at once (each run then sends its own again, backing off, while its lease lasts) instead of sending
 * every ack of the batch again one by one into the outage. Anything else — one item the statement could not take — is
 * answered as thrown, and the batcher sends the acks again one by one so that item fails alone.
 */
export function settleFailure(error: unknown): unknown {
  const kind = connectionFailure(error);
  if (kind === undefined) return error;
  return new SettleUnavailableError('PostgreSQL', facts(error).message, kind, error);
}

/**
 * Maps a failed ping (a readiness probe's): the database out of reach is `X_DRIVER_UNAVAILABLE` saying so — not an
 * enqueue's error, which would tell the probe's reader a job was not queued — anything else is answered as thrown.
 */
export function pingFailure(error: unknown): unknown {
  if (connectionFailure(error) === undefined) return error;
  return new JobsError(
    'X_DRIVER_UNAVAILABLE',
    `PostgreSQL is out of reach (${facts(error).message}).`,
    {
      fix: 'Check postgres.url (DATABASE_URL) and that the server accepts connections from here; the probe answers ready once it does.',
      cause: error,
    },
  );
}

/** Why a boot-time connect failed, for `DatabaseUnreachableError`. */
export function bootFailureReason(error: unknown): DatabaseUnreachableReason {
  const { code, message } = facts(error);
  switch (code) {
    case 'ECONNREFUSED':
      return 'refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown-host';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'unreachable';
    case '3D000':
      return 'unknown-database';
    case '28000':
    case '28P01':
      return 'auth';
    default:
      if (/^SASL|password/i.test(message)) return 'auth';
      if (/timeout/i.test(message)) return 'timeout';
      return 'other';
  }
}

/** The message of a thrown value, for an error's detail. */
export function messageOf(error: unknown): string {
  return facts(error).message;
}
