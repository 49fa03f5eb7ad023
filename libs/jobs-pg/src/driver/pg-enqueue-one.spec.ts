import type { EnqueueRequest } from '@ultimat3/jobs';
import type { PgExecutor } from '../executor/pg-executor';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { pgContext } from './pg-context';
import { batchMemory, CAUTIOUS_SINGLES, enqueueOne } from './pg-enqueue';
import { statementsFor } from './statements';

/** An executor that names the statements it runs: `insert` (the fast path), `judge` (`SQL_ENQUEUE`) or `other`. */
function naming(executor: PgExecutor): PgExecutor & { names: string[] } {
  const sql = statementsFor();
  const named = {
    names: [] as string[],
    query<R>(text: string, values: readonly unknown[]) {
      named.names.push(
        text === sql.enqueueInsert ? 'insert' : text === sql.enqueue ? 'judge' : 'other',
      );
      return executor.query<R>(text, values);
    },
  };
  return named;
}

const created = (r: EnqueueRequest) => ({ id: r.id, runId: r.runId, deduped: false });

describe('a single PostgreSQL enqueue: the fast insert, then the judging statement', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  const setup = () => {
    const executor = naming(db.executor);
    return { executor, ctx: pgContext(executor, statementsFor()), memory: batchMemory() };
  };

  it('creates a job in ONE statement, the fast insert', async () => {
    const { executor, ctx, memory } = setup();
    const r = request();
    expect(await enqueueOne(ctx, r, memory)).toEqual(created(r));
    expect(executor.names).toEqual(['insert']);
    expect(memory.singles).toBe(0);
  });

  it('answers a held id or live key from the judging statement, then skips the fast insert for a while', async () => {
    const { executor, ctx, memory } = setup();
    const holder = request({ idempotencyKey: 'k' });
    await enqueueOne(ctx, holder, memory);
    executor.names.length = 0;

    const byKey = request({ idempotencyKey: 'k' });
    const holds = { id: holder.id, runId: holder.runId, deduped: true };
    expect(await enqueueOne(ctx, byKey, memory)).toEqual(holds);
    expect(executor.names).toEqual(['insert', 'judge']);
    expect(memory.singles).toBe(CAUTIOUS_SINGLES);

    executor.names.length = 0;
    // a held id is answered the same way, now straight from the judging statement
    expect(await enqueueOne(ctx, { ...request(), id: holder.id }, memory)).toEqual(holds);
    const fresh = Array.from({ length: CAUTIOUS_SINGLES - 1 }, () => request());
    for (const r of fresh) expect(await enqueueOne(ctx, r, memory)).toEqual(created(r));
    expect(executor.names).toEqual(Array.from({ length: CAUTIOUS_SINGLES }, () => 'judge'));

    executor.names.length = 0;
    const next = request();
    expect(await enqueueOne(ctx, next, memory)).toEqual(created(next));
    expect(executor.names).toEqual(['insert']);
  });

  it('refuses a strict request whose key a live row holds, as the judging statement decides', async () => {
    const { executor, ctx } = setup();
    const holder = request({ idempotencyKey: 'strict' });
    await enqueueOne(ctx, holder);
    executor.names.length = 0;
    await expect(
      enqueueOne(ctx, request({ idempotencyKey: 'strict', onConflict: 'error' })),
    ).rejects.toMatchObject({ code: 'X_JOB_DUPLICATE' });
    // without a memory every call tries the fast insert first
    expect(executor.names).toEqual(['insert', 'judge']);
    const { rows } = await db.executor.query<{ n: number }>(
      'select count(*)::int as n from x_jobs',
      [],
    );
    expect(rows).toEqual([{ n: 1 }]);
  });
});
