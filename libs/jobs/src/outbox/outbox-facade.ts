import type { JobsFacade } from '../declare/ambient';
import { announceLanded } from '../declare/enqueue';
import type { EnqueueRequest, EnqueueResult, JobDriver } from '../driver/job-driver';
import { JobDuplicateError } from '../errors/declaration-errors';
import { OutboxNoTxError } from '../errors/outbox-errors';
import type { EventBus } from '../events/event-bus';
import { systemClock, type Clock } from '../util/clock';
import type { OutboxStore } from './outbox-store';

/**
 * What an enqueue outside any transaction does: `optional` (the default) publishes straight to the driver;
 * `required` refuses it with `X_OUTBOX_NO_TX`.
 */
export type OutboxMode = 'optional' | 'required';

/** Options of {@link outboxJobsFacade}. */
export interface OutboxJobsFacadeOptions {
  /** Where an enqueue inside a transaction is staged. */
  readonly store: OutboxStore;
  /** Where an enqueue outside one is published (`mode: 'optional'`). */
  readonly driver: JobDriver;
  /** The time source (default the system clock). */
  readonly clock?: Clock;
  /** Outside a transaction: publish directly (default) or refuse. */
  readonly mode?: OutboxMode;
  /** Told after a DIRECT publish landed (the in-process wake). A staged row is announced by the relay instead. */
  readonly onEnqueued?: (queue: string) => void;
  /** The event bus `publishEvent()` publishes on. */
  readonly events?: EventBus;
}

/**
 * The facade that joins the caller's transaction: install it with
 * `setJobsFacade(outboxJobsFacade({ store, driver }, currentOutboxTx))` and run `outboxRelay({ store, driver })`.
 *
 * The caller's transaction is `{ tx }` on the enqueue, else `currentTx()` (the one `OutboxInterceptor` made ambient).
 * Inside one the request is staged there and the answer is its own ids — minted before staging, the row id IS the job
 * id — with `deduped: false`: only a publish can tell that a live job already held the key, and then these ids name no
 * row. `enqueueMany` stages all its rows in one `stageMany` on that transaction, an item repeating an earlier item's
 * key judged as the driver judges it (see `collapseRepeatedKeys`). Outside one, `mode` decides.
 */
export function outboxJobsFacade(
  options: OutboxJobsFacadeOptions,
  currentTx: () => unknown = () => undefined,
): JobsFacade {
  const clock = options.clock ?? systemClock;
  const mode = options.mode ?? 'optional';
  return {
    now: () => clock.now(),
    ...(options.events === undefined ? {} : { events: options.events }),
    async enqueue(request, { tx }) {
      const joined = tx ?? currentTx();
      if (joined !== undefined) {
        await options.store.stage(request, joined);
        return { id: request.id, runId: request.runId, deduped: false };
      }
      if (mode === 'required') throw new OutboxNoTxError(request.name);
      const result = await options.driver.enqueue(request);
      if (!result.deduped) options.onEnqueued?.(request.queue);
      return result;
    },
    async enqueueMany(requests, { tx }) {
      const joined = tx ?? currentTx();
      if (joined !== undefined) {
        const { staged, results } = collapseRepeatedKeys(requests);
        await options.store.stageMany(staged, joined);
        return results;
      }
      if (mode === 'required') throw new OutboxNoTxError(requests[0]?.name ?? 'enqueueMany');
      const results = await options.driver.enqueueMany(requests);
      announceLanded(requests, results, options.onEnqueued);
      return results;
    },
  };
}

/**
 * A batch staged in one transaction, judged as if enqueued one by one, as a driver judges a batch: an item whose
 * `(name, tenant, idempotency key)` an earlier item of the batch holds is not staged and answers that item's ids with
 * `deduped: true` — or, under `onConflict: 'error'`, refuses the whole batch with `X_JOB_DUPLICATE` before anything
 * is staged. Staged apart, the two rows would publish as two jobs whenever the first finished before the second's
 * publish.
 */
function collapseRepeatedKeys(requests: readonly EnqueueRequest[]): {
  staged: EnqueueRequest[];
  results: EnqueueResult[];
} {
  const holders = new Map<string, EnqueueRequest>();
  const staged: EnqueueRequest[] = [];
  const results: EnqueueResult[] = [];
  for (const request of requests) {
    const key = JSON.stringify([request.name, request.tenantId ?? '', request.idempotencyKey]);
    const holder = holders.get(key);
    if (holder === undefined) {
      holders.set(key, request);
      staged.push(request);
      results.push({ id: request.id, runId: request.runId, deduped: false });
      continue;
    }
    if (request.onConflict === 'error') {
      throw new JobDuplicateError(
        `Job "${request.name}" is enqueued twice in one batch under idempotency key "${request.idempotencyKey}".`,
        "Enqueue each key once per batch, or enqueue with onConflict: 'dedupe' to receive the first item's ids.",
        { job: request.name, id: holder.id, runId: holder.runId },
      );
    }
    results.push({ id: holder.id, runId: holder.runId, deduped: true });
  }
  return { staged, results };
}
