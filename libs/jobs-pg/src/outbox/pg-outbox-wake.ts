import { Client } from 'pg';
import type { JobsLogger } from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { wakeClientOptions } from '../backend/pool-options';
import { startQueueWake, type QueueWake } from '../wake/queue-wake';
import { OUTBOX_WAKE_CHANNEL } from './wake-channel';

/** How long the wake's LISTEN session may take to connect when not told (10 000 ms, as the backend's). */
export const OUTBOX_WAKE_CONNECT_TIMEOUT_MS = 10_000;

/** Where the relay's wake listens: a connection string of the outbox's database, and the executor probing it. */
export interface OutboxWakeSource {
  /** Dialled for the one dedicated LISTEN session (never a pooled connection; no PgBouncer in transaction mode). */
  readonly url: string;
  /** The pooled executor the probe is sent through: the path every commit that stages a row takes. */
  readonly executor: PgExecutor;
  /** How long dialling the LISTEN session may take, in ms (default {@link OUTBOX_WAKE_CONNECT_TIMEOUT_MS}). */
  readonly connectTimeoutMs?: number;
}

/**
 * Starts the relay's wake on the outbox's own database: a proven LISTEN on `x_outbox_wake` (the notify that
 * `SQL_OUTBOX_STAGE` sends on commit), calling `onWake` per notification and `onLive` when it is proven and lost —
 * the same re-dialled session the Postgres backend uses, independent of the job driver the relay publishes onto.
 */
export function startOutboxWake(
  source: OutboxWakeSource,
  onWake: () => void,
  logger: JobsLogger,
  onLive?: (live: boolean) => void,
): QueueWake {
  return startQueueWake({
    listener: () =>
      new Client(
        wakeClientOptions(source.url, source.connectTimeoutMs ?? OUTBOX_WAKE_CONNECT_TIMEOUT_MS),
      ),
    executor: source.executor,
    channel: OUTBOX_WAKE_CHANNEL,
    onWake: () => onWake(),
    ...(onLive === undefined ? {} : { onLive }),
    logger,
  });
}
