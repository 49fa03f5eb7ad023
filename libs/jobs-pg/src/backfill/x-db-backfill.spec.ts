import { join } from 'node:path';
import { runX } from '../../../jobs/src/cli/program';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresBackfillLedger } from './pg-backfill-ledger';

const APP = join(__dirname, '../../test/backfill-app.ts');

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

/** Runs `x` in this process against the test database; answers its exit code and what it printed. */
async function x(...argv: string[]) {
  return xWith({ DATABASE_URL: db.url, NODE_ENV: 'test' }, ...argv);
}

async function xWith(env: NodeJS.ProcessEnv, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runX(argv, {
    env,
    cwd: process.cwd(),
    streams: { out: (t) => void out.push(t), err: (t) => void err.push(t) },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Records a completed pass of `name` in the ledger, as a worker's pass would. */
async function completed(name: string, n: number) {
  const ledger = postgresBackfillLedger({ executor: db.executor });
  const id = `01950000-0000-7000-8000-${String(n).padStart(12, '0')}`;
  await ledger.begin({
    id,
    name,
    checksum: 'c',
    appVersion: null,
    jobId: id,
    runId: id,
    nowMs: Date.UTC(2026, 0, n),
  });
  await ledger.finish(
    id,
    'completed',
    { rows: 3, batches: 1, lastCursor: [3], nowMs: Date.UTC(2026, 0, n) },
    null,
  );
}

describe('x db backfill', () => {
  it('--pending exits 1 (X_BACKFILL_PENDING) while anything declared is unswept, 0 once nothing is', async () => {
    const before = await x('db', 'backfill', '--pending', '--app', APP);
    expect(before.code).toBe(1);
    expect(before.out).toContain('pending    x-app-slugs');
    expect(before.out).toContain('pending    x-app-publish-at');
    expect(before.err).toContain('X_BACKFILL_PENDING');

    const json = await x('db', 'backfill', '--pending', '--json', '--app', APP);
    expect(JSON.parse(json.out)).toMatchObject({
      environment: 'test',
      pending: ['x-app-slugs', 'x-app-publish-at'],
    });

    // a dry run gates and enqueues nothing; the migration x-app-publish-at requires is not applied
    const dry = await x('db', 'backfill', 'x-app-slugs', '--app', APP);
    expect(dry).toMatchObject({ code: 0 });
    expect(dry.out).toContain('dry run');
    expect(dry.out).toContain('count() matches 3 rows');
    const refused = await x('db', 'backfill', 'x-app-publish-at', '--write', '--app', APP);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('X_BACKFILL_MIGRATION_PENDING');
    const jobs = await db.pool.query('select count(*)::int as n from x_jobs');
    expect(jobs.rows[0]).toEqual({ n: 0 });

    await completed('x-app-slugs', 1);
    await completed('x-app-publish-at', 2);
    const after = await x('db', 'backfill', '--pending', '--app', APP);
    expect(after.code).toBe(0);
    expect(after.out).toContain('completed  x-app-slugs');
  });

  it('refuses a completed name without --force, enqueues it with --write --force, and lists the ledger', async () => {
    const applied = await x('db', 'backfill', 'x-app-slugs', '--write', '--app', APP);
    expect(applied.code).toBe(1);
    expect(applied.err).toContain('X_BACKFILL_APPLIED');
    const unknown = await x('db', 'backfill', 'x-app-nobody', '--app', APP);
    expect(unknown.err).toContain('X_BACKFILL_UNKNOWN');

    const forced = await x(
      'db',
      'backfill',
      'x-app-slugs',
      '--write',
      '--force',
      '--json',
      '--app',
      APP,
    );
    expect(forced.code).toBe(0);
    const { jobId } = JSON.parse(forced.out) as { jobId: string };
    const row = await db.pool.query(
      'select name, input, idempotency_key from x_jobs where id = $1',
      [jobId],
    );
    expect(row.rows).toEqual([
      { name: 'x-app-slugs', input: { force: true }, idempotency_key: 'x-app-slugs' },
    ]);

    const list = await x('db', 'backfill', '--list', '--json', '--name', 'x-app-slugs');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toEqual([
      expect.objectContaining({ name: 'x-app-slugs', status: 'completed', rows: 3 }),
    ]);
  });

  it('--all isolates per name: a refusal is reported and the others still run; usage errors exit 2', async () => {
    await db.pool.query('truncate x_backfills');
    await db.pool.query('truncate x_jobs cascade');
    const all = await x('db', 'backfill', '--all', '--write', '--json', '--app', APP);
    expect(all.code).toBe(1);
    expect(JSON.parse(all.out)).toEqual([
      { name: 'x-app-slugs', enqueued: true, code: null },
      { name: 'x-app-publish-at', enqueued: false, code: 'X_BACKFILL_MIGRATION_PENDING' },
    ]);
    expect((await x('db', 'backfill', '--app', APP)).code).toBe(2);
    expect((await x('db', 'backfill', '--list', '--pending')).code).toBe(2);
  });

  it("on Redis reads requires from the app's database: --migrations-url, else DATABASE_URL, else a usage error", async () => {
    await db.pool.query('truncate x_backfills');
    const redis = ['--url', process.env['JOBS_TEST_REDIS_URL']!, '--prefix', `xdb${process.pid}`];
    const args = ['db', 'backfill', 'x-app-publish-at', '--app', APP, ...redis];
    // no SQL database anywhere: not a silent "migration pending" but a usage error naming the flag
    const nowhere = await xWith({ NODE_ENV: 'test' }, ...args);
    expect(nowhere.code).toBe(2);
    expect(nowhere.err).toContain('--migrations-url');

    await db.pool.query('create table if not exists migrations (name text, timestamp bigint)');
    const pending = await xWith({ NODE_ENV: 'test' }, ...args, '--migrations-url', db.url);
    expect(pending.code).toBe(1);
    expect(pending.err).toContain('X_BACKFILL_MIGRATION_PENDING');

    await db.pool.query(
      "insert into migrations (name, timestamp) values ('AddPublishAt1786708800001', 1786708800001)",
    );
    const viaFlag = await xWith({ NODE_ENV: 'test' }, ...args, '--migrations-url', db.url);
    expect(viaFlag).toMatchObject({ code: 0 });
    expect(viaFlag.out).toContain('dry run');
    // on Redis, DATABASE_URL is the app's database
    const viaEnv = await xWith({ NODE_ENV: 'test', DATABASE_URL: db.url }, ...args);
    expect(viaEnv).toMatchObject({ code: 0 });
    // a backfill without requires reads no database at all
    const plain = await xWith(
      { NODE_ENV: 'test' },
      'db',
      'backfill',
      'x-app-slugs',
      '--app',
      APP,
      ...redis,
    );
    expect(plain).toMatchObject({ code: 0 });
    await db.pool.query('drop table migrations');
  });
});
