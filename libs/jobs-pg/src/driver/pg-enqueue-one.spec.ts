import { uuidv7, type EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import type { PgExecutor } from '../executor/pg-executor';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { wakeListener } from '../../test/wake-listener';
import { WAKE_DUE_WITHIN_MS, WAKE_SLOT_MS } from '../wake/wake-session';
import { pgContext } from './pg-context';
import { batchMemory, CAUTIOUS_SINGLES, enqueueOne } from './pg-enqueue';
import { statementsFor } from './statements';

/** What the named statements are called in `names`. */
const NAMES: Record<string, string> = {
  enqueueInsert: 'insert',
  enqueueInsertPlain: 'plain',
  enqueueQuiet: 'quiet',
  enqueueHandOff: 'hand-off',
  enqueue: 'judge',
};

/**
 * An executor that names the statements it runs: `insert` (the fast path, `SQL_ENQUEUE_INSERT`), `plain` (the same
 * without `on conflict`, over a shared executor), `quiet` (the fast path without the wake's sub-select), `hand-off`
 * (`plain` that may hand the row to an idle worker), `judge` (`SQL_ENQUEUE`) or `other`; `shared` as the executor it
 * wraps, unless told.
 */
function naming(executor: PgExecutor, shared = executor.shared): PgExecutor & { names: string[] } {
  const sql = statementsFor();
  const byText = new Map(
    Object.entries(NAMES).map(([key, name]) => [sql[key as keyof typeof sql], name]),
  );
  const named = {
    shared,
    names: [] as string[],
    query<R>(text: string, values: readonly unknown[]) {
      named.names.push(byText.get(text) ?? 'other');
      return executor.query<R>(text, values);
    },
  };
  return named;
}

/**
 * The fast path's first statement: the quiet one where the driver's wake memo knows the slot, the hand-off where its
 * hand-off memo tries the queue again (real clock: timing).
 */
const fastPath = expect.stringMatching(/^(plain|quiet|hand-off)$/);
/** A statement that announces: the plain insert, or the hand-off once the queue's miss is older than its retry wait. */
const announcing = expect.stringMatching(/^(plain|hand-off)$/);

const created = (r: EnqueueRequest) => ({ id: r.id, runId: r.runId, deduped: false });

describe('a single PostgreSQL enqueue: the fast insert, then the judging statement', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES, beforeDrop: () => listener.end() });
  const listener = wakeListener(db);
  const setup = () => {
    const executor = naming(db.executor);
    return { executor, ctx: pgContext(executor, statementsFor()), memory: batchMemory() };
  };

  it('creates a job in ONE statement: the hand-off insert for a job due now, the fast insert for one due later', async () => {
    const { executor, ctx, memory } = setup();
    const r = request();
    expect(await enqueueOne(ctx, r, memory)).toEqual(created(r));
    expect(executor.names).toEqual(['hand-off']);
    expect(memory.singles).toBe(0);
    expect(memory.handOff.tries(r.queue)).toBe(false);
    const again = request({ runAt: Date.now() + 60_000 });
    expect(await enqueueOne(ctx, again, memory)).toEqual(created(again));
    expect(executor.names).toEqual(['hand-off', fastPath]);
  });

  it('answers a held id or live key from the judging statement, then skips the fast insert for a while', async () => {
    const { executor, ctx, memory } = setup();
    const holder = request({ idempotencyKey: 'k' });
    await enqueueOne(ctx, holder, memory);
    executor.names.length = 0;

    const byKey = request({ idempotencyKey: 'k' });
    const holds = { id: holder.id, runId: holder.runId, deduped: true };
    expect(await enqueueOne(ctx, byKey, memory)).toEqual(holds);
    expect(executor.names).toEqual([fastPath, 'judge']);
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
    expect(executor.names).toEqual([fastPath]);
  });

  it('refuses a strict request whose key a live row holds, as the judging statement decides', async () => {
    const { executor, ctx } = setup();
    const holder = request({ idempotencyKey: 'strict' });
    await enqueueOne(ctx, holder);
    executor.names.length = 0;
    await expect(
      enqueueOne(ctx, request({ idempotencyKey: 'strict', onConflict: 'error' })),
    ).rejects.toMatchObject({
      code: 'X_JOB_DUPLICATE',
      // the holder's ids, as the memory and Redis drivers name them: the run id was missing here
      meta: { id: holder.id, runId: holder.runId, state: 'ready' },
    });
    // without a memory every call tries the fast insert first
    expect(executor.names).toEqual(['insert', 'judge']);
    const { rows } = await db.executor.query<{ n: number }>(
      'select count(*)::int as n from x_jobs',
      [],
    );
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('sends a job of a slot its own committed enqueue holds, or one due past the wake window, without the wake', async () => {
    const T = Date.UTC(2026, 0, 1);
    const clock = frozenClock(T);
    const executor = naming(db.executor);
    expect(executor.shared).toBe(true);
    const ctx = pgContext(executor, statementsFor(), clock);
    const memory = batchMemory();
    const at = (overrides: Partial<EnqueueRequest> = {}) =>
      request({ id: uuidv7(clock.now()), runAt: clock.now(), queue: 'memo-q', ...overrides });
    await listener.sinceMarker();

    const first = at();
    expect(await enqueueOne(ctx, first, memory)).toEqual(created(first));
    await clock.advance(1);
    for (const r of [at(), at(), at({ runAt: T + 10 * WAKE_DUE_WITHIN_MS })]) {
      expect(await enqueueOne(ctx, r, memory)).toEqual(created(r));
    }
    expect(executor.names).toEqual(['hand-off', 'quiet', 'quiet', 'quiet']);
    // the slot was announced once, by the first
    expect((await listener.sinceMarker()).heard.slice(0, -1)).toEqual(['memo-q']);

    // the next slot: the wake's statement again, and it announces
    executor.names.length = 0;
    await clock.advance(WAKE_SLOT_MS);
    const next = at();
    expect(await enqueueOne(ctx, next, memory)).toEqual(created(next));
    // a held key met by the quiet statement is judged as before
    const held = { ...at(), idempotencyKey: first.idempotencyKey };
    expect(await enqueueOne(ctx, held, memory)).toEqual({
      id: first.id,
      runId: first.runId,
      deduped: true,
    });
    expect(executor.names).toEqual([announcing, 'quiet', 'judge']);
    expect((await listener.sinceMarker()).heard.slice(0, -1)).toEqual(['memo-q']);
  });

  it('never sends the quiet statement over an executor inside a transaction', async () => {
    const clock = frozenClock(Date.UTC(2026, 0, 1));
    const executor = naming(db.executor, false);
    const ctx = pgContext(executor, statementsFor(), clock);
    const memory = batchMemory();
    const at = () => request({ id: uuidv7(clock.now()), runAt: clock.now() });
    for (let i = 0; i < 3; i++) await enqueueOne(ctx, at(), memory);
    expect(executor.names).toEqual(['insert', 'insert', 'insert']);
  });
});
