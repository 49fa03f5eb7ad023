/** Reading a run's jobs back through the driver's introspection, every page of a list. */
import { jobCursor, type JobDriver, type JobListFilter, type JobRow } from '@ultimat3/jobs';

/** Rows per page {@link listAll} asks for. */
const PAGE = 200;

/** Every row `filter` matches, page by page (throws when the driver has no introspection). */
export async function listAll(driver: JobDriver, filter: JobListFilter): Promise<JobRow[]> {
  const introspect = driver.introspect;
  if (introspect === undefined) throw new Error(`${driver.kind} has no introspection`);
  const rows: JobRow[] = [];
  for (let after: string | undefined; ;) {
    const page = await introspect.list({ ...filter, limit: PAGE, ...(after ? { after } : {}) });
    rows.push(...page);
    const last = page[page.length - 1];
    if (page.length < PAGE || last === undefined) return rows;
    after = jobCursor(last);
  }
}
