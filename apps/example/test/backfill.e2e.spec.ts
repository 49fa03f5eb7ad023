import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { ADD_POST_SLUG_MIGRATION, POST_SLUG_BACKFILL, slugOf } from '@ultimat3/example-jobs';
import { recordingLogger, type BackfillPassView, type JobRow } from '@ultimat3/jobs';
import request from 'supertest';
import { untilValue as until } from '../../../test/until';
import type { TriggeredBackfill } from '../src/backfills.controller';
import { exampleDatabaseSpec } from './support/example-database';
import { startExampleApp } from './support/example-app';

/**
 * The `posts.slug` backfill through the example app, on a real PostgreSQL: the app's TypeORM migrations run at boot
 * (the second adds the column the backfill fills), `POST /backfills/posts.slug` gates and queues the pass, and the
 * worker role — in this process here, `apps/worker` in production — sweeps the rows into the `x_backfills` ledger.
 */
describe('example app: the posts.slug backfill', () => {
  let app: INestApplication;

  const db = exampleDatabaseSpec({
    beforeDrop: async () => {
      await app?.close();
    },
  });
  beforeAll(async () => {
    app = await startExampleApp((dataSource) => ({
      driver: 'postgres',
      postgres: { dataSource },
      roles: ['web', 'worker'],
      worker: { pollIntervalMs: 20, idlePollMaxMs: 100 },
      logger: recordingLogger(),
    }));
  });

  const url = `/backfills/${POST_SLUG_BACKFILL}`;

  it('runs both migrations at boot, recorded in TypeORM’s table, and adds posts.slug', async () => {
    const applied = await db.pool.query<{ name: string }>(
      'select name from migrations order by timestamp',
    );
    expect(applied.rows.map((r) => r.name)).toEqual([
      'CreatePosts1796000000000',
      ADD_POST_SLUG_MIGRATION,
    ]);
    const column = await db.pool.query(
      "select 1 from information_schema.columns where table_name = 'posts' and column_name = 'slug'",
    );
    expect(column.rowCount).toBe(1);
  });

  it('gates, queues, and sweeps every post with no slug; the ledger row says how many', async () => {
    const posts = [
      { id: randomUUID(), orgId: randomUUID(), title: 'Hello, subscribers!' },
      { id: randomUUID(), orgId: randomUUID(), title: 'Éclairs & Ünïcode — 2026' },
      { id: randomUUID(), orgId: randomUUID(), title: '!!!' },
    ];
    for (const p of posts) {
      await db.pool.query(
        'insert into posts (id, org_id, title, published_at) values ($1, $2, $3, now())',
        [p.id, p.orgId, p.title],
      );
    }

    const res = await request(app.getHttpServer()).post(url).send({}).expect(202);
    const triggered = res.body as TriggeredBackfill;
    expect(triggered).toMatchObject({
      name: POST_SLUG_BACKFILL,
      requires: ADD_POST_SLUG_MIGRATION,
      job: { deduped: false },
    });

    await until('the pass to be done', async () => {
      const row = (await request(app.getHttpServer()).get(`/jobs/${triggered.job.id}`))
        .body as JobRow;
      return row.state === 'done' ? row : undefined;
    });
    const passes = (await request(app.getHttpServer()).get(url).expect(200))
      .body as BackfillPassView[];
    expect(passes[0]).toMatchObject({
      name: POST_SLUG_BACKFILL,
      status: 'completed',
      jobId: triggered.job.id,
      rows: 3,
      batches: 1,
    });

    const slugs = await db.pool.query<{ id: string; slug: string | null }>(
      'select id, slug from posts',
    );
    expect(new Map(slugs.rows.map((r) => [r.id, r.slug]))).toEqual(
      new Map(posts.map((p) => [p.id, slugOf(p)])),
    );
    expect(slugOf(posts[0]!)).toBe(`hello-subscribers-${posts[0]!.id.slice(0, 8)}`);
    expect(slugOf(posts[1]!)).toBe(`eclairs-unicode-2026-${posts[1]!.id.slice(0, 8)}`);
    expect(slugOf(posts[2]!)).toBe(posts[2]!.id.slice(0, 8));

    // completed: the gate refuses a second pass unless forced
    const again = await request(app.getHttpServer()).post(url).send({}).expect(409);
    expect(again.body).toMatchObject({ code: 'X_BACKFILL_APPLIED' });
  });

  it('refuses the pass while the migration it requires is not applied', async () => {
    await db.pool.query('delete from migrations where name = $1', [ADD_POST_SLUG_MIGRATION]);
    const res = await request(app.getHttpServer()).post(url).send({ force: true }).expect(409);
    expect(res.body).toMatchObject({ code: 'X_BACKFILL_MIGRATION_PENDING' });
    expect((res.body as { message: string }).message).toContain(ADD_POST_SLUG_MIGRATION);
  });

  it('answers 404 for a backfill the app does not declare', async () => {
    await request(app.getHttpServer()).post('/backfills/nope').send({}).expect(404);
  });
});
