import { errorCodeOf } from '../../errors/jobs-error';
import { OutboxQuarantinedError } from '../../errors/outbox-errors';
import { renderError } from '../../runtime/render-error';
import type { EnqueueRequest } from '../../driver/job-driver';
import type { OutboxPublishFailure, OutboxRecord } from '../outbox-store';
import type { ResolvedRelayOptions } from './relay-options';

/** What one pass did. */
export interface OutboxPassResult {
  /** Rows the claim took. */
  readonly claimed: number;
  /** Rows published and retired (a `deduped` publish included). */
  readonly published: number;
  /** Of those, the publishes that met an existing job (a republish, or a live key's holder). */
  readonly deduped: number;
  /** Rows handed straight back: behind a failed publish of their transaction, or because the relay began to drain. */
  readonly released: number;
  /** Rows quarantined: the one whose last try failed, and the rows its transaction staged after it. */
  readonly quarantined: number;
  /** The first publish that failed and will be tried again, if one did. */
  readonly failure: OutboxPublishFailure | undefined;
  /** Whether the pass stopped on an outage (the database out of reach): the relay backs off before the next. */
  readonly outage: boolean;
}

/** An empty pass: nothing claimed. */
export const EMPTY_PASS: OutboxPassResult = {
  claimed: 0,
  published: 0,
  deduped: 0,
  released: 0,
  quarantined: 0,
  failure: undefined,
  outage: false,
};

/**
 * A publish failure that says nothing about the row: the database out of reach (`X_DRIVER_UNAVAILABLE`, as the
 * drivers map a refused or lost connection), a transaction the server rolled back or refused for load (SQLSTATE
 * classes 40, 53, 57), or a server that takes no writes (25006: a standby after a failover, a database a host switched
 * to read-only as its disk filled). Charged to a row, an outage of a few seconds would quarantine every row it met.
 */
function transient(error: unknown): boolean {
  const code = errorCodeOf(error);
  if (code === undefined) return false;
  return (
    code === 'X_DRIVER_UNAVAILABLE' || code === '25006' || /^(40|53|57)[0-9A-Z]{3}$/.test(code)
  );
}

/**
 * The job a staged row names, for its log lines and its quarantine error: read with care, since a row written by hand
 * or by an older build may hold a request that is not an object (JSON `null`) — the driver refuses it, and reading its
 * name must not throw the whole pass (which left the batch claimed, and claimed again with it after every lease).
 */
function jobOf(record: OutboxRecord): string {
  const request = record.request as Partial<EnqueueRequest> | null;
  const name = typeof request === 'object' && request !== null ? request.name : undefined;
  return typeof name === 'string' ? name : String(name);
}

/** A row whose publish failed and is charged for it: tried again next pass, or quarantined on its last try. */
interface RowFailure {
  readonly record: OutboxRecord;
  readonly error: string;
}

interface Published {
  readonly ids: string[];
  readonly queues: Set<string>;
  deduped: number;
  /** Rows charged with their failure, in claim order. */
  readonly failed: RowFailure[];
  /** A failure that stopped the whole pass (the database out of reach). */
  stopped: OutboxPublishFailure | undefined;
}

/**
 * Publishes `records` in claim order. A row that fails holds back the rows after it in ITS transaction only (they
 * are skipped, and released) — the rows of other transactions go on. A transient failure stops the pass, as does
 * `keepGoing()` turning false.
 */
async function publishInOrder(
  options: ResolvedRelayOptions,
  records: readonly OutboxRecord[],
  keepGoing: () => boolean,
): Promise<Published> {
  const { driver, logger, claimant } = options;
  const done: Published = {
    ids: [],
    queues: new Set(),
    deduped: 0,
    failed: [],
    stopped: undefined,
  };
  const heldTx = new Set<string>();
  for (const record of records) {
    if (!keepGoing()) break;
    if (heldTx.has(record.txKey)) continue;
    try {
      const result = await driver.enqueue(record.request);
      if (result.deduped) done.deduped += 1;
      else done.queues.add(record.request.queue);
    } catch (error) {
      if (errorCodeOf(error) !== 'X_JOB_DUPLICATE') {
        const text = renderError(error);
        const stops = transient(error);
        logger.log('warn', 'jobs.outbox.publish-failed', {
          relay: claimant,
          id: record.id,
          job: jobOf(record),
          attempts: stops ? record.attempts : record.attempts + 1,
          transient: stops,
          error: text,
        });
        if (stops) {
          done.stopped = { id: record.id, error: text };
          break;
        }
        done.failed.push({ record, error: text });
        heldTx.add(record.txKey);
        continue;
      }
      // onConflict: 'error' met a live holder of the key: the staged request cannot land, and retrying it forever
      // would stop every row behind it. It is retired as a dedupe to that holder, loudly.
      done.deduped += 1;
      logger.log('warn', 'jobs.outbox.duplicate', {
        relay: claimant,
        id: record.id,
        job: jobOf(record),
        error: renderError(error),
      });
    }
    done.ids.push(record.id);
  }
  return done;
}

/**
 * Settles the rows charged with a failure: a row on its last try is quarantined (with the rows its transaction staged
 * after it) and reported; any other is released with its failure recorded. Answers the ids quarantined, and the
 * failure to report for the pass (the first row that will be tried again).
 */
async function settleFailures(
  options: ResolvedRelayOptions,
  failed: readonly RowFailure[],
): Promise<{ quarantined: Set<string>; retry: OutboxPublishFailure | undefined }> {
  const { store, claimant, logger, maxPublishAttempts } = options;
  const quarantined = new Set<string>();
  let retry: OutboxPublishFailure | undefined;
  for (const { record, error } of failed) {
    const attempts = record.attempts + 1;
    if (attempts < maxPublishAttempts) {
      retry ??= { id: record.id, error };
      await store.release([record.id], claimant, { id: record.id, error });
      continue;
    }
    const [row, ...heldBehind] = await store.quarantine(record.id, claimant, error);
    if (row === undefined) continue; // the fence missed: another relay holds it now
    quarantined.add(row);
    for (const id of heldBehind) quarantined.add(id);
    const coded = new OutboxQuarantinedError(jobOf(record), record.id, attempts, error);
    logger.log('error', 'jobs.outbox.quarantined', {
      relay: claimant,
      code: coded.code,
      id: record.id,
      job: jobOf(record),
      attempts,
      error,
      heldBehind,
    });
  }
  return { quarantined, retry };
}

/**
 * One relay pass: claim a batch (a lease), publish each row in `stagedAt, id` order under its own id, then retire what
 * landed. A row whose publish fails holds back the later rows of its own transaction — createInvoice then chargeCard
 * staged together never publish out of order — while other transactions' rows go on. The failed row is released with
 * its attempt counted and tried again next pass; on its `maxPublishAttempts`-th failure it is quarantined instead, with
 * the rows its transaction staged after it (`X_OUTBOX_QUARANTINED` / `X_OUTBOX_HELD_BEHIND`), and logged
 * `jobs.outbox.quarantined`. The database out of reach stops the pass and is charged to no row. Draining
 * (`keepGoing()` false) stops between rows. Whatever was not published or quarantined is released at once, so a blip
 * costs one interval, not a lease.
 */
export async function relayPass(
  options: ResolvedRelayOptions,
  keepGoing: () => boolean,
): Promise<OutboxPassResult> {
  const { store, claimant, batch, claimLeaseMs, faults } = options;
  const records = await store.claim({ claimant, limit: batch, leaseMs: claimLeaseMs });
  if (records.length === 0) return EMPTY_PASS;

  const done = await publishInOrder(options, records, keepGoing);
  await faults?.afterPublish?.(done.ids);
  const retired = done.ids.length > 0 ? await store.markPublished(done.ids, claimant) : 0;
  if (retired < done.ids.length) {
    // this relay stalled past its lease and another took the rows: the fence made the retire a no-op
    options.logger.log('warn', 'jobs.outbox.lease-lost', {
      relay: claimant,
      published: done.ids.length,
      retired,
    });
  }
  const { quarantined, retry } = await settleFailures(options, done.failed);
  const settled = new Set([...done.ids, ...done.failed.map((f) => f.record.id), ...quarantined]);
  const rest = records.filter((r) => !settled.has(r.id)).map((r) => r.id);
  if (rest.length > 0) await store.release(rest, claimant);
  for (const queue of done.queues) options.onPublished?.(queue);
  const retried = done.failed.filter((f) => !quarantined.has(f.record.id)).length;
  return {
    claimed: records.length,
    published: done.ids.length,
    deduped: done.deduped,
    released: rest.length + retried,
    quarantined: quarantined.size,
    failure: retry ?? done.stopped,
    outage: done.stopped !== undefined,
  };
}
