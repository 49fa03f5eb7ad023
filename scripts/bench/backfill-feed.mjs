/**
 * The throttle bench's app: a feed of posts (ids 1…n spread over orgs, each with a publish time) indexed as an app
 * reads it — `(org_id, published_at)` — and the request the app serves from it, an org's 20 newest posts through a
 * TypeORM repository. The sweep writes the same table (every row's slug) through the same DataSource.
 */
import { freshDatabase, jobs, pg, typeorm } from './backfill-common.mjs';

/** The swept and read table, as the app's entity. */
export const FeedPost = new typeorm.EntitySchema({
  name: 'FeedPost',
  tableName: 'bf_feed_posts',
  columns: {
    id: { type: 'int', primary: true },
    orgId: { name: 'org_id', type: 'int' },
    title: { type: 'text' },
    publishedAt: { name: 'published_at', type: 'timestamptz' },
    slug: { type: 'text', nullable: true },
    handled: { type: 'int', default: 0 },
  },
});

/** What the request reads, as plain SQL (the out-of-process probe's copy of the repository call). */
export const FEED_SQL =
  'select id, org_id, title, published_at, slug from bf_feed_posts where org_id = $1 order by published_at desc limit 20';

/** The request: org `org`'s 20 newest posts, through the repository (an index range scan on the swept table). */
export function feedRequest(dataSource, org) {
  return dataSource.getRepository(FeedPost).find({
    where: { orgId: org },
    order: { publishedAt: 'DESC' },
    take: 20,
  });
}

/**
 * Creates a fresh database `name` on the server at `serverUrl`, migrated, with `rows` posts over `orgs` orgs (row i
 * belongs to org i % orgs, published i seconds after a fixed epoch). Answers its url.
 */
export async function seedFeed(serverUrl, name, rows, orgs, migrate) {
  const url = await freshDatabase(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('create extension if not exists pg_stat_statements');
  await migrate({ query: async (text, values) => client.query(text, [...values]) });
  await client.query(
    `create table bf_feed_posts (id int primary key, org_id int not null, title text not null,
       published_at timestamptz not null, slug text, handled int not null default 0)`,
  );
  await client.query(
    `insert into bf_feed_posts (id, org_id, title, published_at)
     select g, g % $2::int, 'Post ' || g, timestamptz '2026-01-01' + g * interval '1 second'
     from generate_series(1, $1::int) g`,
    [rows, orgs],
  );
  await client.query(
    'create index bf_feed_posts_org_published_idx on bf_feed_posts (org_id, published_at)',
  );
  await client.query('vacuum analyze bf_feed_posts');
  await client.end();
  return url;
}

/**
 * The sweep, as an app declares one over its DataSource: keyset pages of the repository, each page's slugs written in
 * one UPDATE on the same DataSource. `onPage()` is told after each page's write. With `narrow` its source selects only
 * the id, all the UPDATE needs (declared under its own name).
 */
export function declareFeedSweep({
  dataSource,
  ledger,
  rate,
  batch = 1_000,
  onPage = () => {},
  phases = [],
  narrow = false,
}) {
  return jobs.backfill({
    name: narrow ? 'bench-feed-slugs-narrow' : 'bench-feed-slugs',
    batch,
    rate,
    tenant: 'none',
    runtime: { ledger, environment: 'bench' },
    source: () => {
      const source = dataSource.getRepository(FeedPost).createQueryBuilder('p');
      return narrow ? source.select(['p.id']) : source;
    },
    async handle({ rows }) {
      await timed(phases, 'update', () => writeSlugs(dataSource, rows));
      onPage();
    },
  });
}

const stamp = () => performance.timeOrigin + performance.now();

/** Runs `work`, recording into `phases` when it ran (`{ k, a, b }`, wall ms): what a slow request overlapped. */
async function timed(phases, k, work) {
  const a = stamp();
  try {
    return await work();
  } finally {
    phases.push({ k, a, b: stamp() });
  }
}

/** A page's write: every row's slug, in one UPDATE on the DataSource. */
export function writeSlugs(dataSource, rows) {
  return dataSource.query(
    `update bf_feed_posts set slug = 'post-' || id, handled = handled + 1 where id = any($1::int[])`,
    [rows.map((r) => r.id)],
  );
}

/**
 * The same pages read and written without a job: the keyset read `backfill()` makes (`readKeysetPage` over the same
 * repository source, one statement a page) — with `read: 'raw'` the same page as one plain SQL statement, with
 * `read: 'narrow'` the keyset read over a source selecting only the id (all the UPDATE needs) — the same UPDATE, pages
 * started `1 / rate` s apart: no worker, step checkpoint, ledger row or throttle. What a pass costs beyond this is the
 * job machinery's. `phases` collects when each read and UPDATE ran.
 */
export async function bareSweep(
  dataSource,
  { rows, rate, batch = 1_000, read: how = 'orm', phases = [] },
) {
  let cursor = null;
  for (let page = 0; page * batch <= rows; page++) {
    const started = performance.now();
    const source = dataSource.getRepository(FeedPost).createQueryBuilder('p');
    if (how === 'narrow') source.select(['p.id']);
    const read = await timed(phases, 'read', () =>
      how === 'raw'
        ? rawPage(dataSource, cursor, batch)
        : jobs.readKeysetPage('bench-feed-bare', source, undefined, cursor, batch),
    );
    if (read.rows.length === 0) return;
    await timed(phases, 'update', () => writeSlugs(dataSource, read.rows));
    cursor = read.cursor;
    const wait = 1_000 / rate - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * The same keyset page as one plain SQL statement on the DataSource: the rows as `pg` parses them, no query building
 * and no entity hydration (a raw window's read: what the page costs the process below the ORM).
 */
export async function rawPage(dataSource, cursor, batch) {
  const rows = await dataSource.query(
    `select id, org_id, title, published_at, slug, handled from bf_feed_posts
     where id > $1 order by id limit $2`,
    [cursor === null ? 0 : cursor[0], batch],
  );
  return { rows, cursor: rows.length === 0 ? null : [rows.at(-1).id] };
}
