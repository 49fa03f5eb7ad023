import { InvariantError } from '../errors/runtime-errors';
import { DEFAULT_BACKFILL_LIST_LIMIT, type BackfillPassRow } from './ledger';

/** The most rows one `list()` answers. */
export const MAX_BACKFILL_LIST_LIMIT = 1_000;

/** The `limit` of a ledger listing: default 100, a whole number from 1 to 1,000, else `X_INVARIANT`. */
export function clampBackfillListLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_BACKFILL_LIST_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_BACKFILL_LIST_LIMIT) {
    throw new InvariantError(
      `backfill ledger: limit ${String(limit)} is not a whole number from 1 to ${MAX_BACKFILL_LIST_LIMIT}.`,
    );
  }
  return limit;
}

/** Newest pass first: by start time, then by id (UUIDv7 ids sort by creation), so the order is total. */
export function newestFirst(a: BackfillPassRow, b: BackfillPassRow): number {
  if (a.startedAt !== b.startedAt) return b.startedAt - a.startedAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
