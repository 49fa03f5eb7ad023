import { readKeysetPage, type KeysetCursor, type KeysetPage } from './keyset-source';

/**
 * Rows per sub-read of a backfill page. A page of `batch` rows is read as keyset sub-reads of at most this many, with
 * the event loop given back between them, so `pg` parsing and TypeORM hydrating a whole page (~3 MB allocated at 1,000
 * rows) is not one slice a request in the same process waits behind. Chosen by `scripts/bench/backfill-throttle.mjs`
 * (the process CPU a request waited behind, sliced against single-statement pages in the same run): smaller slices
 * cost a statement each — query building, a pool checkout — and at 250 the request waited behind more of this
 * process's work than with one statement a page, not less.
 */
export const BACKFILL_READ_SLICE = 500;

/** Lets whatever the event loop has queued (a request's I/O, its timers) run before the next sub-read. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Reads the page after `after` as {@link readKeysetPage} does — at most `limit` rows of the source in key order, the
 * cursor after the last — but as sub-reads of at most `slice` rows, each a keyset read strictly past the previous
 * one's last row (never OFFSET), yielding to the event loop between them. The page is the rows a single read would
 * answer; a row inserted or deleted between two sub-reads is seen or missed exactly as a keyset read across pages
 * sees or misses it (inserted past the cursor: read; behind it: not; deleted ahead of it: not read). A sub-read that
 * answers fewer rows than it asked for ends the page: the source ran out.
 */
export async function readKeysetPageInSlices<T>(
  backfill: string,
  source: unknown,
  key: readonly string[] | undefined,
  after: KeysetCursor | null,
  limit: number,
  slice: number = BACKFILL_READ_SLICE,
): Promise<KeysetPage<T>> {
  const size = Math.max(1, Math.floor(slice));
  const rows: T[] = [];
  let cursor = after;
  while (rows.length < limit) {
    if (rows.length > 0) await yieldToEventLoop();
    const want = Math.min(size, limit - rows.length);
    const part = await readKeysetPage<T>(backfill, source, key, cursor, want);
    for (const row of part.rows) rows.push(row);
    if (part.cursor !== null) cursor = part.cursor;
    if (part.rows.length < want) break;
  }
  return { rows, cursor: rows.length === 0 ? null : cursor };
}
