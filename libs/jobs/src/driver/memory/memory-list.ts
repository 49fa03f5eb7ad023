import { JobPageInvalidError } from '../../errors/operator-errors';
import { DEFAULT_JOB_PAGE, MAX_JOB_PAGE, type JobListFilter } from '../introspection';
import type { JobRow } from '../job-row';
import { copyRow, type MemoryStore } from './memory-store';

function matches(row: JobRow, filter: JobListFilter): boolean {
  return (
    (filter.queue === undefined || row.queue === filter.queue) &&
    (filter.name === undefined || row.name === filter.name) &&
    (filter.state === undefined || row.state === filter.state) &&
    (filter.tenantId === undefined || row.tenantId === filter.tenantId) &&
    (filter.idPrefix === undefined || row.id.startsWith(filter.idPrefix)) &&
    (filter.createdFrom === undefined || row.createdAt >= filter.createdFrom) &&
    (filter.createdTo === undefined || row.createdAt < filter.createdTo)
  );
}

const byIdDesc = (a: JobRow, b: JobRow): number => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * One page of rows, newest first (ids are UUIDv7, so id order is creation order). `after` pages to older rows,
 * `before` to the newer rows nearest the cursor; a cursor must name a stored row, because one that names none was
 * not produced by a page and paging from it would silently answer a different list.
 */
export function listRows(store: MemoryStore, filter: JobListFilter = {}): JobRow[] {
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
    if (cursor !== undefined && store.get(cursor) === undefined) {
      throw new JobPageInvalidError(`the ${which} cursor ${cursor} names no job`, which);
    }
  }

  const rows = [...store.all()].filter((row) => matches(row, filter)).sort(byIdDesc);
  if (filter.before !== undefined) {
    const before = filter.before;
    const newer = rows.filter((row) => row.id > before);
    return newer.slice(Math.max(0, newer.length - limit)).map(copyRow);
  }
  const after = filter.after;
  const older = after === undefined ? rows : rows.filter((row) => row.id < after);
  return older.slice(0, limit).map(copyRow);
}
