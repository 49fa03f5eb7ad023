import type { EnqueueRequest } from '../driver/job-driver';
import { boundedText } from '../values/text';
import type { OutboxQuarantineCode, OutboxRecord, QuarantinedOutboxRecord } from './outbox-store';

/** One staged row of the memory outbox store, as its map keeps it. */
export interface MemoryOutboxRow {
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

/** Whether `a` was staged before `b`: `stagedAt`, then staging order. */
export const before = (a: MemoryOutboxRow, b: MemoryOutboxRow): boolean =>
  a.stagedAt < b.stagedAt || (a.stagedAt === b.stagedAt && a.seq < b.seq);

/**
 * A request as the store keeps and hands it back: through JSON text, as the pg store keeps it — key order, own
 * `__proto__` keys and lone surrogates survive, and the copy is of the caller's realm (a `structuredClone` is not,
 * under a VM test runner).
 */
export const cloneRequest = (request: EnqueueRequest): EnqueueRequest =>
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

/** The claimed row as the relay reads it. */
export function recordOf(row: MemoryOutboxRow): OutboxRecord {
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

/** The quarantined row as an operator reads it. */
export function quarantinedOf(row: MemoryOutboxRow): QuarantinedOutboxRecord {
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
export function quarantineRow(
  row: MemoryOutboxRow,
  now: number,
  code: OutboxQuarantineCode,
  error: string,
): void {
  row.claimedBy = null;
  row.claimedAt = null;
  row.quarantinedAt = now;
  row.quarantineCode = code;
  row.lastError = boundedText(error);
}
