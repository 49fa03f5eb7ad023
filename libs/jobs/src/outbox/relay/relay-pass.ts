import { errorCodeOf } from '../../errors/jobs-error';
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
  /** Rows handed straight back: after a failed publish, or because the relay began to drain. */
  readonly released: number;
  /** The publish that stopped the batch, if one did. */
  readonly failure: OutboxPublishFailure | undefined;
}

/** An empty pass: nothing claimed. */
export const EMPTY_PASS: OutboxPassResult = {
  claimed: 0,
  published: 0,
  deduped: 0,
  released: 0,
  failure: undefined,
};

const errorText = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

interface Published {
  readonly ids: string[];
  readonly queues: Set<string>;
  deduped: number;
  failure: OutboxPublishFailure | undefined;
}

/** Publishes `records` in order until one fails or `keepGoing()` turns false. */
async function publishInOrder(
  options: ResolvedRelayOptions,
  records: readonly OutboxRecord[],
  keepGoing: () => boolean,
): Promise<Published> {
  const { driver, logger, claimant } = options;
  const done: Published = { ids: [], queues: new Set(), deduped: 0, failure: undefined };
  for (const record of records) {
    if (!keepGoing()) break;
    try {
      const result = await driver.enqueue(record.request);
      if (result.deduped) done.deduped += 1;
      else done.queues.add(record.request.queue);
    } catch (error) {
      if (errorCodeOf(error) !== 'X_JOB_DUPLICATE') {
        done.failure = { id: record.id, error: errorText(error) };
        logger.log('warn', 'jobs.outbox.publish-failed', {
          relay: claimant,
          id: record.id,
          job: record.request.name,
          attempts: record.attempts + 1,
          error: done.failure.error,
        });
        break;
      }
      // onConflict: 'error' met a live holder of the key: the staged request cannot land, and retrying it forever
      // would stop every row behind it. It is retired as a dedupe to that holder, loudly.
      done.deduped += 1;
      logger.log('warn', 'jobs.outbox.duplicate', {
        relay: claimant,
        id: record.id,
        job: record.request.name,
        error: errorText(error),
      });
    }
    done.ids.push(record.id);
  }
  return done;
}

/**
 * One relay pass: claim a batch (a lease), publish each row in `stagedAt, id` order under its own id, then retire what
 * landed. A failed publish stops the batch — later rows never overtake it — and the rest is released at once, so a
 * blip costs one interval, not a lease. Draining (`keepGoing()` false) stops between rows the same way.
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
  const rest = records.slice(done.ids.length).map((r) => r.id);
  if (rest.length > 0) await store.release(rest, claimant, done.failure);
  for (const queue of done.queues) options.onPublished?.(queue);
  return {
    claimed: records.length,
    published: done.ids.length,
    deduped: done.deduped,
    released: rest.length,
    failure: done.failure,
  };
}
