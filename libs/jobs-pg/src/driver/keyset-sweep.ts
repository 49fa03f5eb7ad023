import type { PgExecutor } from '../executor/pg-executor';

/** One batch of a keyset sweep, as its statement answers it (a count arrives as text when it is a `bigint`). */
export interface KeysetBatch {
  readonly removed: number | string;
  readonly scanned: number | string;
  readonly last_at: string | null;
  readonly last_id: string | null;
}

/**
 * Runs a keyset batch statement until a batch takes fewer rows than the limit: each batch continues after the last
 * key of the one before, so a sweep of a million rows is a thousand short statements, never one long one. Answers the
 * rows removed.
 */
export async function keysetSweep(
  limit: number,
  batch: (afterAt: string | null, afterId: string | null) => Promise<KeysetBatch | undefined>,
): Promise<number> {
  let removed = 0;
  let afterAt: string | null = null;
  let afterId: string | null = null;
  for (;;) {
    const result = await batch(afterAt, afterId);
    if (!result) return removed;
    removed += Number(result.removed);
    if (Number(result.scanned) < limit || result.last_at === null) return removed;
    afterAt = result.last_at;
    afterId = result.last_id;
  }
}

/**
 * Removes the rows a keyset purge statement finds older than `cutoff` (ISO), in batches of `limit`: `sql` takes $1 the
 * cut-off, $2 and $3 the last key of the batch before, $4 the limit (the outbox's and the webhook ledger's purges).
 */
export function keysetPurge(
  executor: PgExecutor,
  sql: string,
  cutoff: string,
  limit: number,
): Promise<number> {
  return keysetSweep(limit, async (afterAt, afterId) => {
    const { rows } = await executor.query<KeysetBatch>(sql, [cutoff, afterAt, afterId, limit]);
    return rows[0];
  });
}
