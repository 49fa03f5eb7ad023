import 'reflect-metadata';
import { Client } from 'pg';
import { DataSource, type Logger as TypeOrmLogger } from 'typeorm';
import {
  currentOutboxTx,
  directJobsFacade,
  job,
  outboxJobsFacade,
  outboxRelay,
  runInOutboxTx,
  setJobsFacade,
  t,
  type EnqueueResult,
} from '@ultimat3/jobs';
import { postgresJobDriver } from '../driver/pg-driver';
import type { PgExecutor } from '../executor/pg-executor';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresOutboxStore } from './pg-outbox-store';
import { OUTBOX_WAKE_CHANNEL } from './wake-channel';
import { rejection } from '../../../jobs/test/outcomes';

const welcome = job({
  name: 'pg-enqueue-many.welcome',
  input: t.object({ email: t.string.min(3), city: t.string.min(1) }),
  idempotencyKey: ({ email }) => `welcome:${email}`,
  tenant: 'none',
});
const items = (count: number, prefix = 'u') =>
  Array.from({ length: count }, (_, i) => ({ email: `${prefix}${i}@x.io`, city: 'Lyon' }));

const db = pgJobsSpec({ emptyBeforeEach: ['x_outbox', 'x_job_steps', 'x_jobs'] });

const count = async (table: 'x_outbox' | 'x_jobs'): Promise<number> =>
  (await db.pool.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]?.n ?? 0;

/** The pool executor, recording each statement's text: "one statement" is what a batch promises. */
function countingExecutor(): { executor: PgExecutor; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    executor: {
      shared: db.executor.shared,
      query: (text, values) => {
        statements.push(text);
        return db.executor.query(text, values);
      },
    },
  };
}

describe('handle.enqueueMany on PostgreSQL, straight to the driver', () => {
  let statements: string[];
  let uninstall: () => void = () => undefined;
  beforeEach(() => {
    const counting = countingExecutor();
    statements = counting.statements;
    uninstall = setJobsFacade(
      directJobsFacade({ driver: postgresJobDriver({ executor: counting.executor }) }),
    );
  });
  afterEach(() => uninstall());

  it('writes 500 jobs in ONE statement and answers each its stored ids, in order', async () => {
    const results = await welcome.enqueueMany(items(500));
    expect(statements).toHaveLength(1);
    const { rows } = await db.pool.query<{ id: string; run_id: string; email: string }>(
      "select id, run_id, input->>'email' as email from x_jobs",
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(rows).toHaveLength(500);
    results.forEach((result, i) => {
      expect(result.deduped).toBe(false);
      expect(byId.get(result.id)).toEqual({
        id: result.id,
        run_id: result.runId,
        email: `u${i}@x.io`,
      });
    });
  });

  it('mints a batch’s ids in the order of its items, so ties on priority and run time claim in that order', async () => {
    const results = await welcome.enqueueMany(items(50));
    const sorted = [...results.map((r) => r.id)].sort();
    expect(results.map((r) => r.id)).toEqual(sorted);
  });

  it('refuses a batch with invalid items before any statement, naming every bad item', async () => {
    const bad = items(4);
    bad[1] = { email: 'x', city: 'Lyon' };
    bad[3] = { email: 'ok@x.io', city: '' };
    const error = await rejection(welcome.enqueueMany(bad));
    expect(error).toMatchObject({
      code: 'X_JOB_INPUT_INVALID',
      issues: [
        { index: 1, path: 'email', message: expect.any(String) },
        { index: 3, path: 'city', message: expect.any(String) },
      ],
    });
    expect(statements).toEqual([]);
    expect(await count('x_jobs')).toBe(0);
  });

  it('refuses a runId that is not a UUID with X_JOB_OPTIONS_INVALID, not a cast error (single and many)', async () => {
    for (const call of [
      () => welcome.enqueue(items(1)[0]!, { runId: 'order-42' }),
      () => welcome.enqueueMany(items(2), { runId: 'order-42' }),
    ]) {
      expect(await rejection(call())).toMatchObject({
        code: 'X_JOB_OPTIONS_INVALID',
        meta: { field: 'options.runId' },
      });
    }
    expect(statements).toEqual([]);
    const runId = '0190a0a0-0000-7000-8000-0000000000aa';
    const results = await welcome.enqueueMany(items(2), { runId });
    expect(results.map((r) => r.runId)).toEqual([runId, runId]);
  });
});

describe('handle.enqueueMany through the outbox, in a TypeORM transaction', () => {
  let dataSource: DataSource;
  const logged: string[] = [];
  let uninstall: () => void = () => undefined;
  const store = () => postgresOutboxStore({ executor: db.executor });

  beforeAll(async () => {
    const logger: TypeOrmLogger = {
      logQuery: (query) => void logged.push(query),
      logQueryError: () => undefined,
      logQuerySlow: () => undefined,
      logSchemaBuild: () => undefined,
      logMigration: () => undefined,
      log: () => undefined,
    };
    dataSource = new DataSource({ type: 'postgres', url: db.url, logging: ['query'], logger });
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });
  beforeEach(() => {
    logged.length = 0;
    const driver = postgresJobDriver({ executor: db.executor });
    uninstall = setJobsFacade(
      outboxJobsFacade({ store: store(), driver, mode: 'required' }, currentOutboxTx),
    );
  });
  afterEach(() => uninstall());

  const stagedRows = async (): Promise<{ id: string; run_id: string; tx: string }[]> =>
    (
      await db.pool.query<{ id: string; run_id: string; tx: string }>(
        'select id, run_id, tx_id::text as tx from x_outbox order by staged_at, id',
      )
    ).rows;

  it('stages every row with { manager } in ONE statement on the caller connection, published after commit', async () => {
    let results: EnqueueResult[] = [];
    await dataSource.transaction(async (manager) => {
      results = await welcome.enqueueMany(items(3), { manager });
      expect(await count('x_outbox')).toBe(0); // not visible outside the caller's transaction
    });
    expect(logged.filter((q) => q.includes('insert into x_outbox'))).toHaveLength(1);
    const staged = await stagedRows();
    expect(staged.map((r) => [r.id, r.run_id])).toEqual(results.map((r) => [r.id, r.runId]));
    expect(new Set(staged.map((r) => r.tx)).size).toBe(1);
    expect(results.every((r) => !r.deduped)).toBe(true);

    const relay = outboxRelay({
      store: store(),
      driver: postgresJobDriver({ executor: db.executor }),
    });
    expect((await relay.runOnce()).published).toBe(3);
    const { rows } = await db.pool.query<{ id: string; run_id: string }>(
      'select id, run_id from x_jobs',
    );
    expect(rows.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      results.map((r) => ({ id: r.id, run_id: r.runId })),
    );
  });

  it('stages a key repeated in the batch once: the repeat answers the first item’s ids, deduped, and one job runs', async () => {
    let results: EnqueueResult[] = [];
    const [a, b] = items(2, 'repeat');
    await dataSource.transaction(async (manager) => {
      results = await welcome.enqueueMany([a!, b!, a!], { manager });
    });
    expect(results[2]).toEqual({ ...results[0], deduped: true });
    expect((await stagedRows()).map((r) => r.id)).toEqual([results[0]!.id, results[1]!.id]);
    const relay = outboxRelay({
      store: store(),
      driver: postgresJobDriver({ executor: db.executor }),
    });
    expect((await relay.runOnce()).published).toBe(2);
    expect(await count('x_jobs')).toBe(2);
  });

  it('joins the ambient outbox transaction (and { tx }); a rollback leaves no row of the batch', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await runInOutboxTx(manager, () => welcome.enqueueMany(items(2, 'ambient')));
        await welcome.enqueueMany(items(2, 'explicit'), { tx: manager });
        throw new Error('the caller changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    expect(await count('x_outbox')).toBe(0);

    await dataSource.transaction((manager) =>
      runInOutboxTx(manager, () => welcome.enqueueMany(items(2, 'ambient'))),
    );
    expect(await count('x_outbox')).toBe(2);
  });

  it('refuses a batch outside any transaction under mode required, and stages nothing for []', async () => {
    expect(await rejection(welcome.enqueueMany(items(2)))).toMatchObject({
      code: 'X_OUTBOX_NO_TX',
    });
    await dataSource.transaction(async (manager) => {
      expect(await welcome.enqueueMany([], { manager })).toEqual([]);
    });
    expect(logged.filter((q) => q.includes('x_outbox'))).toEqual([]);
  });

  it('wakes the relays once per batch, on commit', async () => {
    const listener = new Client({ connectionString: db.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => void heard.push(n.channel));
    await listener.query(`listen ${OUTBOX_WAKE_CHANNEL}`);
    try {
      await dataSource.transaction((manager) => welcome.enqueueMany(items(20), { manager }));
      // a round trip on the listening connection delivers what the commit sent before it
      await listener.query('select 1');
      expect(heard).toEqual([OUTBOX_WAKE_CHANNEL]);
    } finally {
      await listener.end();
    }
  });
});
