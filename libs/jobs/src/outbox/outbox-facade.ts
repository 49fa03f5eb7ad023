import type { JobsFacade } from '../declare/ambient';
import { announceLanded } from '../declare/enqueue';
import type { JobDriver } from '../driver/job-driver';
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
 * row. `enqueueMany` stages all its rows in one `stageMany` on that transaction. Outside one, `mode` decides.
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
        await options.store.stageMany(requests, joined);
        return requests.map((r) => ({ id: r.id, runId: r.runId, deduped: false }));
      }
      if (mode === 'required') throw new OutboxNoTxError(requests[0]?.name ?? 'enqueueMany');
      const results = await options.driver.enqueueMany(requests);
      announceLanded(requests, results, options.onEnqueued);
      return results;
    },
  };
}
