import type { EnqueueRequest } from '@ultimat3/jobs';
import type { PgExecutor, PgQueryResult } from '../executor/pg-executor';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { recording, rowsOf } from '../../test/recording-executor';
import { postgresJobDriver } from './pg-driver';
import { pgContext } from './pg-context';
import { coalescingEnqueue, type CoalescingLimits } from './pg-enqueue-coalescer';
import { statementsFor } from './statements';

/**
 * A shared executor that records the statements it is sent (their row counts and texts) and the most it ran at
 * once; while `hold` is set, a statement waits for `release()` before it reaches the database.
 */
function watched(executor: PgExecutor, hold = false) {
  const statements: number[] = [];
  const texts: string[] = [];
  const waiting: (() => void)[] = [];
  const issued: { n: number; then: () => void }[] = [];
  let running = 0;
  let most = 0;
  let holding = hold;
  const run = async <R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> => {
    if (holding) await new Promise<void>((go) => waiting.push(go));
    running++;
    most = Math.max(most, running);
    try {
      return await executor.query<R>(text, values);
    } finally {
      running--;
    }
  };
  return {
    shared: true,
    statements,
    texts,
    most: (): number => most,
    /** Resolves once `n` statements were sent. */
    issued: (n: number): Promise<void> =>
      new Promise((then) => {
        if (statements.length >= n) then();
        else issued.push({ n, then });
      }),
    /** Lets the oldest statement held run. */
    releaseOne(): void {
      waiting.shift()?.();
    },
    release(): void {
      holding = false;
      for (const go of waiting.splice(0)) go();
    },
    query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> {
      statements.push(rowsOf(values));
      texts.push(text);
      for (const w of issued.filter((i) => i.n <= statements.length)) {
        issued.splice(issued.indexOf(w), 1);
        w.then();
      }
      return run<R>(text, values);
    },
  };
}

/** The end of the current turn of the event loop, when the coalescer flushes what it gathered. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const created = (r: EnqueueRequest) => ({ id: r.id, runId: r.runId, deduped: false });

/** A date no timestamp can hold: `toISOString` throws a RangeError on it. */
const badDate = (): EnqueueRequest => request({ runAt: Number.NaN });

/** 20,000 random characters: more than a btree index entry can hold, compressed or not. */
const unindexable = (): string =>
  Array.from({ length: 2_000 }, () => Math.random().toString(36).slice(2, 12)).join('');

describe('postgres enqueue coalescing: its bounds', () => {
  const db = pgJobsSpec({ poolSize: 20, emptyBeforeEach: JOB_TABLES });

  const count = async (): Promise<number> => {
    const { rows } = await db.pool.query<{ n: number }>('select count(*)::int as n from x_jobs');
    return rows[0]?.n ?? -1;
  };

  it('sends a lone request, or one gathered alone, by the single-row insert, not a batch statement', async () => {
    const executor = watched(db.executor);
    const sql = statementsFor();
    const enqueue = coalescingEnqueue(pgContext(executor, sql));
    const [first, second] = [request(), request()];
    expect(await Promise.all([enqueue(first), enqueue(second)])).toEqual([
      created(first),
      created(second),
    ]);
    expect(executor.texts).toEqual([sql.enqueueInsert, sql.enqueueInsert]);
  });

  it('carries at most 500 requests a statement; those beyond go in the next', async () => {
    const executor = recording(db.executor);
    const driver = postgresJobDriver({ executor });
    const requests = Array.from({ length: 502 }, () => request());
    const results = await Promise.all(requests.map((r) => driver.enqueue(r)));
    expect(results).toEqual(requests.map(created));
    expect(executor.statements).toEqual([1, 500, 1]);
    expect(await count()).toBe(502);
  });

  it('keeps sending, one statement after another, past as many statements as it may have in flight', async () => {
    const executor = recording(db.executor);
    const driver = postgresJobDriver({ executor });
    for (let n = 0; n < 10; n++) {
      const next = request();
      expect(await driver.enqueue(next)).toEqual(created(next));
    }
    expect(executor.statements).toEqual(Array.from({ length: 10 }, () => 1));
  });

  it('counts a stalled statement once: when it ends, enqueues go one statement at a time again', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      const holder = request({ idempotencyKey: 'locked' });
      await postgresJobDriver({ executor: pgPoolExecutor(client) }).enqueue(holder);
      const executor = recording(db.executor);
      const driver = postgresJobDriver({ executor });
      const blocked = [driver.enqueue(request({ idempotencyKey: 'locked' }))];
      const others = Array.from({ length: 5 }, () => request());
      expect(await Promise.all(others.map((r) => driver.enqueue(r)))).toEqual(others.map(created));
      // a second statement that stalls: the five below go once it has, when every earlier statement's timer has fired
      blocked.push(driver.enqueue(request({ idempotencyKey: 'locked' })));
      await turn();
      const more = Array.from({ length: 5 }, () => request());
      expect(await Promise.all(more.map((r) => driver.enqueue(r)))).toEqual(more.map(created));
      await client.query('commit');
      const deduped = { id: holder.id, runId: holder.runId, deduped: true };
      expect(await Promise.all(blocked)).toEqual([deduped, deduped]);
      await turn(); // past the flush their ends scheduled
      const sent = executor.statements.length;
      const requests = Array.from({ length: 20 }, () => request());
      expect(await Promise.all(requests.map((r) => driver.enqueue(r)))).toEqual(
        requests.map(created),
      );
      expect(executor.statements.slice(sent)).toEqual([1, 19]);
    } finally {
      client.release();
    }
  });

  it('takes at most 8 statements of the pool: with 8 stalled, the next request waits for one to end', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      const holder = request({ idempotencyKey: 'locked' });
      await postgresJobDriver({ executor: pgPoolExecutor(client) }).enqueue(holder);
      const executor = watched(db.executor);
      const driver = postgresJobDriver({ executor });
      const blocked: Promise<unknown>[] = [];
      for (let n = 1; n <= 8; n++) {
        blocked.push(driver.enqueue(request({ idempotencyKey: 'locked' })));
        await executor.issued(n); // the one before it stalled
      }
      const next = request();
      const answer = driver.enqueue(next);
      // another coalescer's stall, timed after the eighth's: once its gathered request lands, the eighth has stalled
      const clock = postgresJobDriver({ executor: db.executor });
      blocked.push(clock.enqueue(request({ idempotencyKey: 'locked' })));
      const tick = request();
      expect(await clock.enqueue(tick)).toEqual(created(tick));
      expect(executor.statements).toHaveLength(8);
      await client.query('commit');
      expect(await answer).toEqual(created(next));
      expect(await Promise.all(blocked)).toEqual(
        blocked.map(() => ({ id: holder.id, runId: holder.runId, deduped: true })),
      );
    } finally {
      client.release();
    }
  });

  it('with a statement slot free, sends what gathered at the end of the turn, beside the one in flight', async () => {
    const executor = watched(db.executor, true);
    const limits: CoalescingLimits = {
      statements: 2,
      stallMs: 60_000,
      maxStatements: 8,
      batch: 500,
    };
    const enqueue = coalescingEnqueue(pgContext(executor, statementsFor()), limits);
    const requests = Array.from({ length: 4 }, () => request());
    const answers = requests.map((r) => enqueue(r));
    expect(executor.statements).toEqual([1]);
    await turn();
    expect(executor.statements).toEqual([1, 3]);
    executor.release();
    expect(await Promise.all(answers)).toEqual(requests.map(created));
  });

  it('counts a statement against the limit until it has run 25 ms, then sends what gathered beside it', async () => {
    const executor = watched(db.executor, true);
    const enqueue = coalescingEnqueue(pgContext(executor, statementsFor()));
    const requests = Array.from({ length: 3 }, () => request());
    const answers = requests.map((r) => enqueue(r));
    // a timer due before the first statement's stall: the two gathered still wait
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(executor.statements).toEqual([1]);
    await executor.issued(2);
    expect(executor.statements).toEqual([1, 2]);
    executor.release();
    expect(await Promise.all(answers)).toEqual(requests.map(created));
  });

  it('sends one gathered batch a free slot: requests beyond what it carries wait for the next', async () => {
    const executor = watched(db.executor, true);
    const limits: CoalescingLimits = { statements: 1, stallMs: 60_000, maxStatements: 8, batch: 2 };
    const enqueue = coalescingEnqueue(pgContext(executor, statementsFor()), limits);
    const requests = Array.from({ length: 5 }, () => request());
    const answers = requests.map((r) => enqueue(r));
    executor.releaseOne();
    await executor.issued(2);
    expect(executor.statements).toEqual([1, 2]);
    executor.release();
    expect(await Promise.all(answers)).toEqual(requests.map(created));
    expect(executor.statements).toEqual([1, 2, 2]);
  });

  it('sends nothing more while maxStatements are in flight, a statement slot free or not', async () => {
    const executor = watched(db.executor, true);
    const limits: CoalescingLimits = {
      statements: 2,
      stallMs: 60_000,
      maxStatements: 1,
      batch: 500,
    };
    const enqueue = coalescingEnqueue(pgContext(executor, statementsFor()), limits);
    const requests = Array.from({ length: 4 }, () => request());
    const answers = requests.map((r) => enqueue(r));
    await turn();
    expect(executor.statements).toEqual([1]);
    executor.release();
    expect(await Promise.all(answers)).toEqual(requests.map(created));
    expect(executor.statements).toEqual([1, 3]);
  });

  it('re-runs a batch a bad date broke one request at a time, in call order', async () => {
    const executor = watched(db.executor);
    const enqueue = coalescingEnqueue(pgContext(executor, statementsFor()));
    const a = request({ idempotencyKey: 'same' });
    const b = request({ idempotencyKey: 'same' });
    const settled = await Promise.allSettled([request(), a, badDate(), b].map((r) => enqueue(r)));
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(settled[2]).toMatchObject({ reason: expect.any(RangeError) });
    // b after a, as if sent one after the other
    expect(settled[1]).toEqual({ status: 'fulfilled', value: created(a) });
    expect(settled[3]).toEqual({ status: 'fulfilled', value: { ...created(a), deduped: true } });
    expect(executor.most()).toBe(1);
    expect(await count()).toBe(2);
  });

  it('fails the callers of a batch a server error not of their values broke, sending none again', async () => {
    const canceled = Object.assign(new Error('canceling statement due to user request'), {
      code: '57014',
    });
    const executor = recording(db.executor, (values) => rowsOf(values) > 1, canceled);
    const enqueue = coalescingEnqueue(pgContext(executor, statementsFor()));
    const settled = await Promise.allSettled([1, 2, 3, 4].map(() => enqueue(request())));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    expect(settled[1]).toEqual({ status: 'rejected', reason: canceled });
    expect(executor.statements).toEqual([1, 3]);
    expect(await count()).toBe(1);
  });

  it.each([
    ['a number out of its column’s range (SQLSTATE class 22)', { priority: 2 ** 40 }, /^22/],
    // random text does not compress: no btree index entry can hold it
    ['a key over a server limit (SQLSTATE class 54)', { idempotencyKey: unindexable() }, /^54/],
    [
      'a value a constraint refuses (SQLSTATE class 23)',
      { name: null as unknown as string },
      /^23/,
    ],
  ])('keeps %s its own caller’s error', async (_, bad: Partial<EnqueueRequest>, code: RegExp) => {
    const enqueue = coalescingEnqueue(pgContext(db.executor, statementsFor()));
    const requests = [request(), request(), request(bad), request()];
    const settled = await Promise.allSettled(requests.map((r) => enqueue(r)));
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(settled[2]).toMatchObject({ reason: { code: expect.stringMatching(code) } });
    expect(await count()).toBe(3);
  });
});
