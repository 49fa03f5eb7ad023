import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { ADD_POST_SLUG_MIGRATION } from '@ultimat3/example-jobs';
import { recordingLogger } from '@ultimat3/jobs';
import { exampleDatabaseSpec } from './support/example-database';
import { startExampleApp } from './support/example-app';

/**
 * The example's TypeORM migrations over a database an earlier example made with `synchronize`: the table and its rows
 * are adopted as they are, the index TypeORM named is renamed rather than built a second time, and `slug` is added.
 */
describe('example app: migrations over a synchronize-era database', () => {
  let app: INestApplication | undefined;

  const db = exampleDatabaseSpec({
    beforeDrop: async () => {
      await app?.close();
    },
  });

  it('adopts the table, its rows and its index, then adds posts.slug', async () => {
    // what `synchronize: true` made of the Post entity before the migrations existed
    await db.pool.query(
      `create table posts (id uuid not null, org_id uuid not null, title text not null,
         published_at timestamptz not null, constraint "PK_2829ac61eff60fcec60d7274b9e" primary key (id))`,
    );
    await db.pool.query(
      'create index "IDX_2baae92a4e861a8fd87e1f7a60" on posts (org_id, published_at)',
    );
    const id = randomUUID();
    await db.pool.query(
      "insert into posts (id, org_id, title, published_at) values ($1, $2, 'Before migrations', now())",
      [id, randomUUID()],
    );

    app = await startExampleApp({ driver: 'memory', roles: ['web'], logger: recordingLogger() });

    const indexes = await db.pool.query<{ indexname: string }>(
      "select indexname from pg_indexes where tablename = 'posts' order by indexname",
    );
    expect(indexes.rows.map((r) => r.indexname)).toEqual([
      'PK_2829ac61eff60fcec60d7274b9e',
      'posts_org_id_published_at_idx',
    ]);
    const rows = await db.pool.query<{ id: string; slug: string | null }>(
      'select id, slug from posts',
    );
    expect(rows.rows).toEqual([{ id, slug: null }]);
    const applied = await db.pool.query<{ name: string }>('select name from migrations');
    expect(applied.rows.map((r) => r.name)).toContain(ADD_POST_SLUG_MIGRATION);
  });
});
