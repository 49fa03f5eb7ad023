import type { EnqueueRequest } from '../driver/job-driver';
import { InvariantError } from '../errors/runtime-errors';
import type { Clock } from '../util/clock';
import { boundedText } from '../values/text';
import {
  before,
  cloneRequest,
  quarantinedOf,
  quarantineRow,
  recordOf,
  type MemoryOutboxRow,
} from './memory-outbox-row';
import { MemoryTx } from './memory-outbox-tx';
import {
  quarantinedPageLimit,
  type OutboxBacklog,
  type OutboxClaimOptions,
  type OutboxPublishFailure,
  type OutboxRecord,
  type QuarantinedOutboxRecord,
} from './outbox-store';

/**
 * The rows of one memory outbox store and every operation on them, synchronous: `memoryOutboxStore` answers each
 * through a promise. Committed, unpublished rows only — a row staged in a {@link MemoryTx} lands here on its commit.
 */
export class MemoryOutboxTable {
  private readonly rows = new Map<string, MemoryOutboxRow>(); // committed, unpublished; insertion order is staging order
  private seq = 0;

  constructor(private readonly clock: Clock) {}

  /**
   * Makes committed rows claimable, in staging order (what a {@link MemoryTx} calls on commit), or lands none: a row
   * whose id another transaction committed after this one staged it is refused, as PostgreSQL's unique index refuses
   * the second of two transactions staging one request, never written over the first one's row.
   */
  readonly land = (staged: readonly MemoryOutboxRow[]): void => {
    const taken = staged.find((row) => this.rows.has(row.id));
    if (taken !== undefined) {
      throw new InvariantError(`memory outbox: request ${taken.id} is already staged.`);
    }
    for (const row of staged) this.rows.set(row.id, row);
  };

  /** Stages every request or none: each is checked before any is written, as one statement would be. */
  stageAll(requests: readonly EnqueueRequest[], tx: unknown): void {
    if (tx instanceof MemoryTx) {
      // a transaction of another store would land these rows there, checked against this store's
      if (tx.table !== this)
        throw new InvariantError('memory outbox: the tx was begun on another memory outbox store.');
      if (tx.state !== 'open') throw new InvariantError(`memory outbox tx is already ${tx.state}.`);
    }
    const ids = new Set<string>();
    for (const { id } of requests) {
      if (
        this.rows.has(id) ||
        ids.has(id) ||
        (tx instanceof MemoryTx && tx.staged.some((r) => r.id === id))
      ) {
        throw new InvariantError(`memory outbox: request ${id} is already staged.`);
      }
      ids.add(id);
    }
    if (tx instanceof MemoryTx) {
      for (const request of requests) tx.staged.push(this.stageNow(request, tx));
      return;
    }
    const group = typeof tx === 'object' && tx !== null ? tx : {};
    this.land(requests.map((request) => this.stageNow(request, group)));
  }

  /** See `OutboxStore.claim`. */
  claim({ claimant, limit, leaseMs }: OutboxClaimOptions): OutboxRecord[] {
    const now = this.clock.now();
    const ordered = [...this.rows.values()].sort((a, b) => (before(a, b) ? -1 : 1));
    const candidates = ordered
      .filter((r) => r.quarantinedAt === null)
      .filter((r) => r.claimedAt === null || r.claimedAt + leaseMs <= now)
      .slice(0, Math.max(0, limit));
    const taken = new Set(candidates.map((r) => r.id));
    // never a row whose transaction has an earlier unpublished row this claim does not also take
    const claimable = candidates.filter(
      (c) => !ordered.some((e) => e.group === c.group && before(e, c) && !taken.has(e.id)),
    );
    for (const row of claimable) {
      row.claimedBy = claimant;
      row.claimedAt = now;
    }
    return claimable.map(recordOf);
  }

  /** See `OutboxStore.markPublished`: the published row is dropped. */
  markPublished(ids: readonly string[], claimant: string): number {
    const mine = this.held(ids, claimant);
    for (const row of mine) this.rows.delete(row.id);
    return mine.length;
  }

  /** See `OutboxStore.release`. */
  release(ids: readonly string[], claimant: string, failure?: OutboxPublishFailure): number {
    const mine = this.held(ids, claimant);
    for (const row of mine) {
      row.claimedBy = null;
      row.claimedAt = null;
      if (failure?.id === row.id) {
        row.attempts += 1;
        row.lastError = boundedText(failure.error);
      }
    }
    return mine.length;
  }

  /** See `OutboxStore.quarantine`. */
  quarantine(id: string, claimant: string, error: string): string[] {
    const [row] = this.held([id], claimant);
    if (row === undefined || row.quarantinedAt !== null) return [];
    const now = this.clock.now();
    row.attempts += 1;
    quarantineRow(row, now, 'X_OUTBOX_QUARANTINED', error);
    const behind = [...this.rows.values()]
      .filter((r) => r.group === row.group && before(row, r) && r.quarantinedAt === null)
      .sort((a, b) => (before(a, b) ? -1 : 1));
    for (const r of behind) {
      quarantineRow(r, now, 'X_OUTBOX_HELD_BEHIND', `held behind quarantined row ${row.id}`);
    }
    return [row.id, ...behind.map((r) => r.id)];
  }

  /** See `OutboxStore.quarantined`. */
  quarantined(limit: number | undefined): QuarantinedOutboxRecord[] {
    const page = quarantinedPageLimit(limit);
    return [...this.rows.values()]
      .filter((r) => r.quarantinedAt !== null)
      .sort((a, b) => (a.quarantinedAt ?? 0) - (b.quarantinedAt ?? 0) || (before(a, b) ? -1 : 1))
      .slice(0, page)
      .map(quarantinedOf);
  }

  /** See `OutboxStore.restore`. */
  restore(ids: readonly string[]): number {
    let restored = 0;
    for (const id of new Set(ids)) {
      const row = this.rows.get(id);
      if (row === undefined || row.quarantinedAt === null) continue;
      row.quarantinedAt = null;
      row.quarantineCode = null;
      row.attempts = 0;
      restored++;
    }
    return restored;
  }

  /** See `OutboxStore.retained`. */
  retained(): number {
    return [...this.rows.values()].filter((r) => r.quarantinedAt === null).length;
  }

  /** See `OutboxStore.backlog`: the age on the store's clock. */
  backlog(): OutboxBacklog {
    let count = 0;
    let oldest: number | null = null;
    for (const row of this.rows.values()) {
      if (row.quarantinedAt !== null) continue;
      count++;
      if (oldest === null || row.stagedAt < oldest) oldest = row.stagedAt;
    }
    const oldestAgeMs = oldest === null ? 0 : Math.max(0, this.clock.now() - oldest);
    return { count, oldestStagedAt: oldest, oldestAgeMs };
  }

  private stageNow(request: EnqueueRequest, group: object): MemoryOutboxRow {
    const row: MemoryOutboxRow = {
      id: request.id,
      request: cloneRequest(request),
      stagedAt: this.clock.now(),
      seq: this.seq++,
      group,
      claimedBy: null,
      claimedAt: null,
      attempts: 0,
      lastError: null,
      quarantinedAt: null,
      quarantineCode: null,
    };
    return row;
  }

  private held(ids: readonly string[], claimant: string): MemoryOutboxRow[] {
    return ids.flatMap((id) => {
      const row = this.rows.get(id);
      return row !== undefined && row.claimedBy === claimant ? [row] : [];
    });
  }
}
