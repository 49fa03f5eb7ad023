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
 * One page of rows, newest first (see `SQL_LIST` / `SQL_LIST_BEFORE`, and `SQL_LIST_CREATED` /
 * `SQL_LIST_CREATED_BEFORE` for a created window: the same rows, reached through the primary key). A cursor must name
 * a stored row: one that names none was not produced by a page, and paging from it would silently answer a different
 * list.
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
  // a created window walks the primary key over the ids minted around it (SQL_LIST_CREATED); otherwise the plain list
  const created = filter.createdFrom !== undefined || filter.createdTo !== undefined;
  const walk = created ? createdIdRange(filter.createdFrom, filter.createdTo) : [];
  if (filter.before !== undefined) {
    const { rows } = await ctx.executor.query<JobRecord>(
      created ? ctx.sql.listCreatedBefore : ctx.sql.listBefore,
      [...filters, filter.before, limit, ...narrowing, ...walk],
    );
    return rows.map(toJobRow).reverse();
  }
  const { rows } = await ctx.executor.query<JobRecord>(
    created ? ctx.sql.listCreated : ctx.sql.list,
    [...filters, filter.after ?? null, limit, ...narrowing, ...walk],
  );
  return rows.map(toJobRow);
}

/**
 * How far a row's `created_at` may be from its id's time and still be reached by the id walk of a created window:
 * the margin of `x_jobs_created_stray3_idx` (migrations 0010, 0012, 0016; 10 s), plus 1 ms for the float rounding of its
 * predicate. A row further away is a stray, read through that index.
 */
const STRAY_MARGIN_MS = 10_001;

/** The last millisecond a UUIDv7's 48 time bits hold. */
const MAX_ID_MS = 2 ** 48 - 1;

/**
 * The ids `[low, high]` (both included) minted from STRAY_MARGIN_MS before `from` to STRAY_MARGIN_MS after `to`: every
 * UUIDv7 whose time is in that span, from the lowest id of its first ms to the highest of its last. An open end is
 * the lowest / highest UUID.
 */
function createdIdRange(from: number | undefined, to: number | undefined): [string, string] {
  const low = from === undefined ? 0 : from - STRAY_MARGIN_MS;
  const high = to === undefined ? MAX_ID_MS : to + STRAY_MARGIN_MS;
  return [
    `${idTimePrefix(low)}-0000-0000-000000000000`,
    `${idTimePrefix(high)}-ffff-ffff-ffffffffffff`,
  ];
}

/** `xxxxxxxx-xxxx`: the 48 time bits of a UUIDv7 of `ms`, clamped to what they hold. */
function idTimePrefix(ms: number): string {
  const hex = Math.min(MAX_ID_MS, Math.max(0, Math.floor(ms)))
    .toString(16)
    .padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}`;
}
