import 'reflect-metadata';
import { DataSource, type MigrationInterface } from 'typeorm';
import { claimOf } from '@ultimat3/jobs';
import { postgresJobDriver } from '../driver/pg-driver';
import { JobsMigration1700000000000 } from '../migrations/typeorm-migration';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { typeormExecutor } from './typeorm-executor';
import { enqueueRequest } from '../../../jobs/test/requests';

describe('typeormExecutor', () => {
  let dataSource: DataSource;

  const db = pgJobsSpec({
    migrate: false,
    beforeDrop: async () => {
      if (dataSource?.isInitialized) await dataSource.destroy();
    },
  });
  beforeAll(async () => {
    // the class is what an app registers; TypeORM runs it inside its own transaction
    const asTypeorm: MigrationInterface = new JobsMigration1700000000000();
    expect(typeof asTypeorm.up).toBe('function');
    dataSource = new DataSource({
      type: 'postgres',
      url: db.url,
      migrations: [JobsMigration1700000000000],
    });
    await dataSource.initialize();
    await dataSource.runMigrations();
  });

  it('installed the tables through JobsMigration1700000000000, recorded in both ledgers', async () => {
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from x_migrations',
    );
    expect(rows[0]?.n).toBeGreaterThan(0);
    expect(await dataSource.showMigrations()).toBe(false);
  });

  it('reads an UPDATE as rows and a count, where plain query() answers [rows, count]', async () => {
    await dataSource.query(
      `insert into x_queue_pauses (queue, paused_at) values ('a', now()), ('b', now())`,
    );
    const update = `update x_queue_pauses set paused_by = $1::text returning queue`;

    // the trap: TypeORM's plain query() shapes an UPDATE's answer as [rows, count]
    const runner = dataSource.createQueryRunner();
    try {
      const raw: unknown = await runner.query(update, ['plain']);
      expect(raw).toEqual([expect.arrayContaining([{ queue: 'a' }, { queue: 'b' }]), 2]);
    } finally {
      await runner.release();
    }

    const result = await typeormExecutor(dataSource).query<{ queue: string }>(update, ['adapter']);
    expect(result.rowCount).toBe(2);
    expect(result.rows.map((r) => r.queue).sort()).toEqual(['a', 'b']);

    const none = await typeormExecutor(dataSource).query(
      `update x_queue_pauses set paused_by = 'x' where queue = 'nope'`,
      [],
    );
    expect(none).toEqual({ rows: [], rowCount: 0 });
  });

  it('drives the job driver: a fenced settle answers true once, then false', async () => {
    const driver = postgresJobDriver({ executor: typeormExecutor(dataSource) });
    const id = '01950000-0000-7000-8000-0000000000a1';
    await driver.enqueue(
      enqueueRequest({
        id,
        runId: '01950000-0000-7000-8000-0000000000a2',
        name: 'typeorm.job',
        queue: 'typeorm-q',
        input: [1, 'two'],
        idempotencyKey: 'k',
        maxAttempts: 2,
      }),
    );
    const [claimed] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'typeorm-q', limit: 5 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(claimed).toMatchObject({ id, input: [1, 'two'], attempt: 1 });
    expect(await driver.heartbeat(id, claimOf(claimed!), 30_000)).toBe(true);
    expect(await driver.ack(id, claimOf(claimed!))).toBe(true);
    expect(await driver.ack(id, claimOf(claimed!))).toBe(false);
    expect(await driver.nack(id, { ...claimOf(claimed!), kind: 'retry', error: 'late' })).toBe(
      false,
    );
  });

  it('runs on a QueryRunner inside its transaction, and leaves the runner open', async () => {
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    const executor = typeormExecutor(runner);
    await executor.query(`insert into x_queue_pauses (queue, paused_at) values ('tx', now())`, []);
    const seen = await executor.query<{ n: number }>(
      `select count(*)::int as n from x_queue_pauses where queue = 'tx'`,
      [],
    );
    expect(seen.rows[0]?.n).toBe(1);
    await runner.rollbackTransaction();
    expect(runner.isReleased).toBe(false);
    await runner.release();
    const after = await db.pool.query(`select 1 from x_queue_pauses where queue = 'tx'`);
    expect(after.rowCount).toBe(0);
  });
});
