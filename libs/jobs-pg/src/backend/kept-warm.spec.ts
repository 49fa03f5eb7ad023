import { once } from 'node:events';
import { Pool, type PoolClient } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { statementsFor } from '../driver/statements';
import { migrate } from '../migrations/migrate';
import { keptWarmSql } from './kept-warm';
import { openKept } from './pool-options';

describe('the warm a kept connection is sent at boot', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.executor, { schema: 'warm_alt' });
  });
  afterAll(() => db.drop());

  /** Runs `text` on one connection of the test pool; answers its result sets, then the session's prepared names. */
  const onOne = async (text: string): Promise<{ plans: number; prepared: string[] }> => {
    const client = await db.pool.connect();
    try {
      const results = (await client.query(text)) as unknown as { command: string }[];
      const { rows } = await client.query<{ name: string }>(
        'select name from pg_prepared_statements',
      );
      return {
        plans: results.filter((r) => r.command === 'EXPLAIN').length,
        prepared: rows.map((r) => r.name),
      };
    } finally {
      client.release();
    }
  };

  const counts = async (schema: string): Promise<number[]> => {
    const { rows } = await db.pool.query<{ jobs: number; offers: number }>(
      `select (select count(*)::int from ${schema}.x_jobs) as jobs,
              (select count(*)::int from ${schema}.x_job_hand_offs) as offers`,
    );
    return [rows[0]!.jobs, rows[0]!.offers];
  };

  it.each([
    ['the default schema', undefined, 'public'],
    ['a schema of its own', 'warm_alt', 'warm_alt'],
  ])(
    'plans the hand-off enqueue and the woken claim in %s, writes nothing, keeps no prepared statement',
    async (_, schema, tables) => {
      const answered = await onOne(keptWarmSql(statementsFor(schema)));
      expect(answered).toEqual({ plans: 2, prepared: [] });
      expect(await counts(tables)).toEqual([0, 0]);
    },
  );

  it('explains each statement with literals in place of its parameters: nothing prepared, no placeholder left', () => {
    const sql = statementsFor(undefined);
    const warm = keptWarmSql(sql);
    // not `prepare … as`: pg_stat_statements would keep that text for the statement every enqueue then runs
    expect(warm).not.toMatch(/\bprepare\b|\bexecute\b|\$\d/i);
    expect(warm.split(/;\n?/).filter((part) => part.trim() !== '')).toEqual([
      expect.stringMatching(/^explain with h as \(/),
      expect.stringMatching(/^explain update x_jobs j set/),
    ]);
    // a statement whose parameters outrun the warm's arguments is refused where it is built, not sent half-bound
    expect(() => keptWarmSql({ ...sql, claimWoken: `${sql.claimWoken} and $11::bool` })).toThrow(
      'keptWarmSql: no argument for $11',
    );
  });

  it('ends its connection when unanswered within the connect timeout, so the boot stays bounded', async () => {
    const pool = new Pool({ connectionString: db.url, max: 1 });
    pool.on('error', () => undefined);
    try {
      jest.useFakeTimers({
        doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'performance', 'hrtime'],
      });
      const booting = openKept(pool, 1, 'select pg_sleep(30)', 5_000);
      // the connection is real: wait for the warm to be sent and its timer set, then drive the timer
      while (jest.getTimerCount() === 0) await new Promise((resolve) => setImmediate(resolve));
      jest.advanceTimersByTime(5_000);
      await expect(booting).resolves.toBeUndefined();
      expect(pool.totalCount).toBe(0);
    } finally {
      jest.useRealTimers();
      await pool.end();
    }
  });

  it('survives a held connection whose backend ends while the others connect, and drops it', async () => {
    const pool = new Pool({ connectionString: db.url, max: 2 });
    pool.on('error', () => undefined);
    let firstHeld: (client: PoolClient) => void = () => undefined;
    const held = new Promise<PoolClient>((resolve) => (firstHeld = resolve));
    let calls = 0;
    const connecting = {
      connect: async (): Promise<PoolClient> => {
        if (calls++ === 0) {
          const client = await pool.connect();
          firstHeld(client);
          return client;
        }
        // the first is held, idle, while this one connects: its backend ends (a restart, pg_terminate_backend)
        const first = await held;
        const stream = (first as unknown as { connection: { stream: NodeJS.EventEmitter } })
          .connection.stream;
        const closed = once(stream, 'close');
        const pid = (first as unknown as { processID: number }).processID;
        await db.pool.query('select pg_terminate_backend($1)', [pid]);
        await closed;
        return pool.connect();
      },
    };
    try {
      // before: the ended connection's 'error' had no listener, an uncaught exception ending the process at boot
      await expect(openKept(connecting, 2, 'select 1')).resolves.toBeUndefined();
      expect(pool.totalCount).toBe(1);
      const { rows } = await pool.query<{ n: number }>('select 1 as n');
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('leaves its connection usable when it fails, and the boot goes on', async () => {
    const pool = new Pool({ connectionString: db.url, max: 1 });
    try {
      await expect(openKept(pool, 1, 'select no_such_column from x_jobs')).resolves.toBeUndefined();
      const { rows } = await pool.query<{ n: number }>('select 1 as n');
      expect(rows).toEqual([{ n: 1 }]);
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
