import { randomUUID } from 'node:crypto';
import { Test, type TestingModule } from '@nestjs/testing';
import { notifySubscribers, SubscribersService } from '@ultimat3/example-jobs';
import { OutboxHost } from '@ultimat3/jobs';
import { DataSource } from 'typeorm';
import { pgJobsSpec } from '../../../libs/jobs-pg/test/pg-jobs-spec';
import { WorkerModule } from '../src/app.module';
import { until } from './support/worker-process';

/**
 * The worker app's own module, in-process on a real PostgreSQL: its `relay` role publishes the rows a web process
 * staged in committed transactions (here: an explicit `{ tx: manager }` and `{ manager }`, as a CLI would), and its worker runs them.
 */
describe('WorkerModule: the relay role publishes staged jobs, and the worker runs them', () => {
  let app: TestingModule | undefined;
  let previousUrl: string | undefined;

  // the worker's JobsModule migrates at boot
  const db = pgJobsSpec({
    migrate: false,
    beforeDrop: async () => {
      await app?.close();
      if (previousUrl === undefined) delete process.env['DATABASE_URL'];
      else process.env['DATABASE_URL'] = previousUrl;
    },
  });
  beforeAll(async () => {
    previousUrl = process.env['DATABASE_URL'];
    process.env['DATABASE_URL'] = db.url;
    const moduleRef = await Test.createTestingModule({ imports: [WorkerModule] }).compile();
    moduleRef.useLogger(false);
    app = await moduleRef.init();
  });

  const count = async (sql: string, id: string): Promise<number> =>
    (await db.pool.query<{ n: number }>(sql, [id])).rows[0]?.n ?? 0;

  it('publishes a committed staging once and never a rolled-back one; close stops the relay', async () => {
    const dataSource = app!.get(DataSource);
    const orgId = randomUUID();

    let doomed = '';
    await expect(
      dataSource.transaction(async (manager) => {
        doomed = (await notifySubscribers.enqueue({ postId: randomUUID(), orgId }, { tx: manager }))
          .id;
        throw new Error('the caller changed its mind');
      }),
    ).rejects.toThrow('changed its mind');

    const postId = randomUUID();
    const queued = await dataSource.transaction((manager) =>
      notifySubscribers.enqueue({ postId, orgId }, { manager }),
    );
    await until('the relay to publish and the worker to finish the job', async () =>
      (await count(
        `select count(*)::int as n from x_jobs where id = $1 and state = 'done'`,
        queued.id,
      )) === 1
        ? true
        : undefined,
    );
    expect(
      await count(
        'select count(*)::int as n from x_outbox where id = $1 and published_at is not null',
        queued.id,
      ),
    ).toBe(1);
    const sent = app!.get(SubscribersService).sent.filter((n) => n.postId === postId);
    expect(sent).toHaveLength(3);

    expect(doomed).not.toBe('');
    expect(await count('select count(*)::int as n from x_outbox where id = $1', doomed)).toBe(0);
    expect(await count('select count(*)::int as n from x_jobs where id = $1', doomed)).toBe(0);

    // The relay holds its wake: one LISTEN session on x_outbox_wake, so a commit elsewhere starts a pass at once.
    await until('the outbox wake session', async () => {
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
         where datname = $1 and query ilike 'listen x_outbox_wake%'`,
        [db.name],
      );
      return (rows[0]?.n ?? 0) > 0 ? true : undefined;
    });

    const host = app!.get(OutboxHost);
    expect(host.relay).toBeDefined();
    await app!.close();
    app = undefined;
    expect(host.relay).toBeUndefined(); // stopped in beforeApplicationShutdown
    expect(dataSource.isInitialized).toBe(false); // and the pool closed after
  });
});
