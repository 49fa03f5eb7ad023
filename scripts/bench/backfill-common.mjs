/**
 * What the backfill benchmarks share: the sources (through the swc register every spec child uses, so a bench runs
 * the code as it is, never a stale dist/), the swept table as a TypeORM EntitySchema, and the sweep itself.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
require(join(ROOT, 'libs', 'jobs-pg', 'test', 'swc-register.js'));

export const jobs = require(join(ROOT, 'libs', 'jobs', 'src', 'index.ts'));
export const jobsPg = require(join(ROOT, 'libs', 'jobs-pg', 'src', 'index.ts'));
export const pg = require('pg');
export const typeorm = require('typeorm');

/** The swept table: ids 1…n, a title, the slug the sweep writes, and how many times a row was handled. */
export const Post = new typeorm.EntitySchema({
  name: 'BenchPost',
  tableName: 'bf_bench_posts',
  columns: {
    id: { type: 'int', primary: true },
    title: { type: 'text' },
    slug: { type: 'text', nullable: true },
    handled: { type: 'int', default: 0 },
  },
});

/** Creates database `name` afresh (dropping one left by an earlier run) on the server at `serverUrl`; answers its url. */
export async function freshDatabase(serverUrl, name) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates a fresh database `name` on the server at `serverUrl`, migrated, with `rows` posts. Answers its url. */
export async function seedDatabase(serverUrl, name, rows) {
  const url = await freshDatabase(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await jobsPg.migrate({ query: async (text, values) => client.query(text, [...values]) });
  await client.query(
    'create table bf_bench_posts (id int primary key, title text not null, slug text, handled int not null default 0)',
  );
  await client.query(
    `insert into bf_bench_posts (id, title) select g, 'Post ' || g from generate_series(1, $1::int) g`,
    [rows],
  );
  await client.query('analyze bf_bench_posts');
  await client.end();
  return url;
}

/**
 * The sweep every process declares alike: slugs every post (`'post-' || id`, an idempotent write) and counts how
 * often each row was handled. `onPage(ids)` is told after each page's write.
 */
export function declareSweep({ dataSource, pool, ledger, rate, batch = 1_000, onPage = () => {} }) {
  return jobs.backfill({
    name: 'bench-slugs',
    batch,
    rate,
    tenant: 'none',
    retry: { attempts: 20, backoff: 'fixed', delay: 100, jitter: false },
    runtime: { ledger, environment: 'bench' },
    source: () => dataSource.getRepository(Post).createQueryBuilder('p'),
    async handle({ rows }) {
      const ids = rows.map((r) => r.id);
      await pool.query(
        `update bf_bench_posts set slug = 'post-' || id, handled = handled + 1 where id = any($1::int[])`,
        [ids],
      );
      onPage(ids);
    },
  });
}

/** A DataSource over `url` knowing only {@link Post}, on the given pool size. */
export async function openDataSource(url, poolSize = 2) {
  const dataSource = new typeorm.DataSource({
    type: 'postgres',
    url,
    entities: [Post],
    extra: { max: poolSize },
  });
  await dataSource.initialize();
  return dataSource;
}

export const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
