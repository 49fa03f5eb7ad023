import {
  DEFAULT_JOB_PAGE,
  idPrefixRange,
  JobPageInvalidError,
  MAX_JOB_PAGE,
  type JobListFilter,
  type JobRow,
} from '@ultimat3/jobs';
import { isUuid, iso, type PgContext } from './pg-context';
import { toJobRow, type JobRecord } from './pg-rows';

/**
 * One page of rows, newest first (see `SQL_LIST` / `SQL_LIST_BEFORE`). A cursor must name a stored row: one that
 * names none was not produced by a page, and paging from it would silently answer a different list.
 */
export async function listRows(ctx: PgContext, filter: JobListFilter = {}): Promise<JobRow[]> {
  const limit = filter.limit ?? DEFAULT_JOB_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_JOB_PAGE) {
    throw new JobPageInvalidError(
      `limit must be a whole number from 1 to ${MAX_JOB_PAGE}, got ${limit}`,
    );
  }
  if (filter.after !== undefined && filter.before !== undefined) {
    throw new JobPageInvalidError('pass after or before, not both');
  }
  for (const which of ['after', 'before'] as const) {
    const cursor = filter[which];
    if (cursor === undefined) continue;
    const known = isUuid(cursor) && (await ctx.executor.query(ctx.sql.get, [cursor])).rows.length;
    if (!known) throw new JobPageInvalidError(`the ${which} cursor ${cursor} names no job`, which);
  }

  const filters = [
    filter.queue ?? null,
    filter.name ?? null,
    filter.state ?? null,
    filter.tenantId ?? null,
  ];
  const range = filter.idPrefix === undefined ? undefined : idPrefixRange(filter.idPrefix);
  const narrowing = [
    range?.low ?? null,
    range?.high ?? null,
    filter.createdFrom === undefined ? null : iso(filter.createdFrom),
    filter.createdTo === undefined ? null : iso(filter.createdTo),
  ];
  if (filter.before !== undefined) {
    const { rows } = await ctx.executor.query<JobRecord>(ctx.sql.listBefore, [
      ...filters,
      filter.before,
      limit,
      ...narrowing,
    ]);
    return rows.map(toJobRow).reverse();
  }
  const { rows } = await ctx.executor.query<JobRecord>(ctx.sql.list, [
    ...filters,
    filter.after ?? null,
    limit,
    ...narrowing,
  ]);
  return rows.map(toJobRow);
}
