import { systemClock, type Clock } from '../util/clock';
import { MemoryOutboxTable } from './memory-outbox-table';
import { MemoryTx } from './memory-outbox-tx';
import type {
  OutboxBacklog,
  OutboxClaimOptions,
  OutboxPublishFailure,
  OutboxStore,
} from './outbox-store';

/** Options of {@link memoryOutboxStore}. */
export interface MemoryOutboxStoreOptions {
  /** Stamps `stagedAt` and `claimedAt` and decides when a lease lapsed (default `systemClock`). */
  readonly clock?: Clock;
}

/** A transaction of the memory store: what it stages is invisible to claims until `commit()`. */
export interface MemoryOutboxTx {
  /** Makes every row staged in it claimable, in staging order. */
  commit(): void;
  /** Drops every row staged in it. */
  rollback(): void;
}

/** The memory outbox store, with its own transactions for tests that need a rollback. */
export interface MemoryOutboxStore extends OutboxStore {
  /** Opens a transaction to pass as `tx` to `stage()`. */
  begin(): MemoryOutboxTx;
}

/**
 * The outbox over in-process maps, for tests and single-process apps; it passes `outboxStoreConformance` like the pg
 * store. A quarantined row stays (out of the claim) until restored. A published row is DROPPED (`retained()` is the
 * relay's backlog, not a running total — the pg store keeps `published_at` as the audit trail this map is not).
 *
 * `stage(request, tx)`: a transaction from `begin()` holds the row until it commits; any other `tx` value (a TypeORM
 * `EntityManager` beside the memory store) stages at once, grouped with the other rows of that `tx` for ordering —
 * memory has no transactions to join.
 */
export function memoryOutboxStore(options: MemoryOutboxStoreOptions = {}): MemoryOutboxStore {
  const table = new MemoryOutboxTable(options.clock ?? systemClock);
  return {
    begin: () => new MemoryTx(table),

    async stage(request, tx) {
      table.stageAll([request], tx);
    },

    async stageMany(requests, tx) {
      table.stageAll(requests, tx);
    },

    async claim(claimOptions: OutboxClaimOptions) {
      return table.claim(claimOptions);
    },

    async markPublished(ids, claimant) {
      return table.markPublished(ids, claimant);
    },

    async release(ids, claimant, failure?: OutboxPublishFailure) {
      return table.release(ids, claimant, failure);
    },

    async quarantine(id, claimant, error) {
      return table.quarantine(id, claimant, error);
    },

    async quarantined(limit) {
      return table.quarantined(limit);
    },

    async restore(ids) {
      return table.restore(ids);
    },

    async retained() {
      return table.retained();
    },

    async backlog(): Promise<OutboxBacklog> {
      return table.backlog();
    },
  };
}
