import type { EnqueueRequest } from '../driver/job-driver';
import { InvariantError } from '../errors/runtime-errors';
import { systemClock, type Clock } from '../util/clock';
import { boundedText } from '../values/text';
import {
  quarantinedPageLimit,
  type OutboxBacklog,
  type OutboxClaimOptions,
  type OutboxPublishFailure,
  type OutboxQuarantineCode,
  type OutboxRecord,
  type OutboxStore,
  type QuarantinedOutboxRecord,
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

interface Row {
  readonly id: string;
  readonly request: EnqueueRequest;
  readonly stagedAt: number;
  /** Staging order: the tie-break under one `stagedAt` (a frozen clock stages everything in one millisecond). */
  readonly seq: number;
  /** The transaction it was staged in: rows of one group are never claimed out of order. */
  readonly group: object;
  claimedBy: string | null;
  claimedAt: number | null;
  attempts: number;
  lastError: string | null;
  quarantinedAt: number | null;
  quarantineCode: OutboxQuarantineCode | null;
}

class Tx implements MemoryOutboxTx {
  readonly staged: Row[] = [];
  state: 'open' | 'committed' | 'rolled-back' = 'open';

  constructor(private readonly land: (rows: readonly Row[]) => void) {}

  commit(): void {
    this.finish('committed');
    this.land(this.staged);
  }

  rollback(): void {
    this.finish('rolled-back');
  }

  private finish(state: 'committed' | 'rolled-back'): void {
    if (this.state !== 'open')
      throw new InvariantError(`memory outbox tx is already ${this.state}.`);
    this.state = state;
  }
}

const before = (a: Row, b: Row): boolean =>
  a.stagedAt < b.stagedAt || (a.stagedAt === b.stagedAt && a.seq < b.seq);

/**
 * A request as the store keeps and hands it back: through JSON text, as the pg store keeps it — key order, own
 * `__proto__` keys and lone surrogates survive, and the copy is of the caller's realm (a `structuredClone` is not,
 * under a VM test runner).
 */
const cloneRequest = (request: EnqueueRequest): EnqueueRequest =>
  JSON.parse(JSON.stringify(request)) as EnqueueRequest;

/** A key per transaction object, minted on first sight: what `txKey` reads for the rows of one group. */
const groupKeys = new WeakMap<object, string>();
let groupSeq = 0;
const keyOf = (group: object): string => {
  let key = groupKeys.get(group);
  if (key === undefined) {
    key = `memory-tx-${++groupSeq}`;
    groupKeys.set(group, key);
  }
  return key;
};

function recordOf(row: Row): OutboxRecord {
  return {
    id: row.id,
    request: cloneRequest(row.request),
    stagedAt: row.stagedAt,
    claimedBy: row.claimedBy ?? '',
    claimedAt: row.claimedAt ?? 0,
    attempts: row.attempts,
    txKey: keyOf(row.group),
  };
}

function quarantinedOf(row: Row): QuarantinedOutboxRecord {
  return {
    id: row.id,
    request: cloneRequest(row.request),
    stagedAt: row.stagedAt,
    quarantinedAt: row.quarantinedAt ?? 0,
    code: row.quarantineCode ?? 'X_OUTBOX_QUARANTINED',
    attempts: row.attempts,
    error: row.lastError,
  };
}

/** Puts `row` out of the claim under `code`. */
function quarantineRow(row: Row, now: number, code: OutboxQuarantineCode, error: string): void {
  row.claimedBy = null;
  row.claimedAt = null;
  row.quarantinedAt = now;
  row.quarantineCode = code;
  row.lastError = boundedText(error);
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
  const clock = options.clock ?? systemClock;
  const rows = new Map<string, Row>(); // committed, unpublished; insertion order is staging order
  let seq = 0;
  const land = (staged: readonly Row[]): void => {
    for (const row of staged) rows.set(row.id, row);
  };

  const stageNow = (request: EnqueueRequest, group: object): Row => {
    const row: Row = {
      id: request.id,
      request: cloneRequest(request),
      stagedAt: clock.now(),
      seq: seq++,
      group,
      claimedBy: null,
      claimedAt: null,
      attempts: 0,
      lastError: null,
      quarantinedAt: null,
      quarantineCode: null,
    };
    return row;
  };

  /** Stages every request or none: each is checked before any is written, as one statement would be. */
  const stageAll = (requests: readonly EnqueueRequest[], tx: unknown): void => {
    const ids = new Set<string>();
    for (const { id } of requests) {
      if (rows.has(id) || ids.has(id) || (tx instanceof Tx && tx.staged.some((r) => r.id === id))) {
        throw new InvariantError(`memory outbox: request ${id} is already staged.`);
      }
      ids.add(id);
    }
    if (tx instanceof Tx) {
      if (tx.state !== 'open') throw new InvariantError(`memory outbox tx is already ${tx.state}.`);
      for (const request of requests) tx.staged.push(stageNow(request, tx));
      return;
    }
    const group = typeof tx === 'object' && tx !== null ? tx : {};
    land(requests.map((request) => stageNow(request, group)));
  };

  const held = (ids: readonly string[], claimant: string): Row[] =>
    ids.flatMap((id) => {
      const row = rows.get(id);
      return row !== undefined && row.claimedBy === claimant ? [row] : [];
    });

  return {
    begin: () => new Tx(land),

    async stage(request, tx) {
      stageAll([request], tx);
    },

    async stageMany(requests, tx) {
      stageAll(requests, tx);
    },

    async claim({ claimant, limit, leaseMs }: OutboxClaimOptions) {
      const now = clock.now();
      const ordered = [...rows.values()].sort((a, b) => (before(a, b) ? -1 : 1));
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
    },

    async markPublished(ids, claimant) {
      const mine = held(ids, claimant);
      for (const row of mine) rows.delete(row.id);
      return mine.length;
    },

    async release(ids, claimant, failure?: OutboxPublishFailure) {
      const mine = held(ids, claimant);
      for (const row of mine) {
        row.claimedBy = null;
        row.claimedAt = null;
        if (failure?.id === row.id) {
          row.attempts += 1;
          row.lastError = boundedText(failure.error);
        }
      }
      return mine.length;
    },

    async quarantine(id, claimant, error) {
      const [row] = held([id], claimant);
      if (row === undefined || row.quarantinedAt !== null) return [];
      const now = clock.now();
      row.attempts += 1;
      quarantineRow(row, now, 'X_OUTBOX_QUARANTINED', error);
      const behind = [...rows.values()]
        .filter((r) => r.group === row.group && before(row, r) && r.quarantinedAt === null)
        .sort((a, b) => (before(a, b) ? -1 : 1));
      for (const r of behind) {
        quarantineRow(r, now, 'X_OUTBOX_HELD_BEHIND', `held behind quarantined row ${row.id}`);
      }
      return [row.id, ...behind.map((r) => r.id)];
    },

    async quarantined(limit) {
      const page = quarantinedPageLimit(limit);
      return [...rows.values()]
        .filter((r) => r.quarantinedAt !== null)
        .sort((a, b) => (a.quarantinedAt ?? 0) - (b.quarantinedAt ?? 0) || (before(a, b) ? -1 : 1))
        .slice(0, page)
        .map(quarantinedOf);
    },

    async restore(ids) {
      let restored = 0;
      for (const id of new Set(ids)) {
        const row = rows.get(id);
        if (row === undefined || row.quarantinedAt === null) continue;
        row.quarantinedAt = null;
        row.quarantineCode = null;
        row.attempts = 0;
        restored++;
      }
      return restored;
    },

    async retained() {
      return [...rows.values()].filter((r) => r.quarantinedAt === null).length;
    },

    async backlog(): Promise<OutboxBacklog> {
      let count = 0;
      let oldest: number | null = null;
      for (const row of rows.values()) {
        if (row.quarantinedAt !== null) continue;
        count++;
        if (oldest === null || row.stagedAt < oldest) oldest = row.stagedAt;
      }
      const oldestAgeMs = oldest === null ? 0 : Math.max(0, clock.now() - oldest);
      return { count, oldestStagedAt: oldest, oldestAgeMs };
    },
  };
}
