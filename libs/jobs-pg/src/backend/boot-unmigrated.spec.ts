import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { JOBS_MIGRATIONS } from '../migrations/all-migrations';
import { migrate } from '../migrations/migrate';
import { qualify } from '../schema';
import { bootError } from '../../test/boot-error';
import { postgresBackend } from './pg-backend';

/**
 * A boot over a URL told not to migrate (`postgres.migrate: false`, and every `x` command) over a database nobody
 * migrated fails at boot, coded and saying what to do, instead of answering the first enqueue or command with
 * PostgreSQL's raw "relation x_jobs does not exist" (42P01). It creates nothing. A schema migrated only part of the way
 * still boots: a build may roll out ahead of its migration.
 */
describe('postgresBackend with migrate: false over a schema with no jobs tables', () => {
  const db = pgJobsSpec({ migrate: false });

  const tablesIn = async (schema: string): Promise<number> => {
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from information_schema.tables where table_schema = $1',
      [schema],
    );
    return rows[0]?.n ?? -1;
  };

  it('over a url: schema-missing, naming the database and the way out, and nothing created', async () => {
    const error = await bootError(postgresBackend({ url: db.url }, { migrate: false }));
    expect(error.meta).toMatchObject({
      reason: 'schema-missing',
      target: { database: db.name },
    });
    expect(error.message).toContain('finds no jobs tables (x_jobs)');
    expect(error.message).toContain('search_path');
    expect(error.fix).toContain('JobsMigration1700000000000');
    expect(await tablesIn('public')).toBe(0);
  });

  it('a named schema that does not exist: the same, naming the schema, which is not created', async () => {
    const error = await bootError(
      postgresBackend({ url: db.url }, { migrate: false, schema: 'jobs_nowhere' }),
    );
    expect(error.meta).toMatchObject({ reason: 'schema-missing' });
    expect(error.message).toContain('schema "jobs_nowhere"');
    const { rows } = await db.pool.query(
      `select 1 from information_schema.schemata where schema_name = 'jobs_nowhere'`,
    );
    expect(rows).toEqual([]);
  });

  it('over an executor the app owns: no check, nothing sent (its migrations may run after the boot)', async () => {
    const backend = await postgresBackend({ executor: db.executor }, { migrate: false });
    await backend.close();
  });

  it('boots once the tables are there, even a migration or more behind this build', async () => {
    await db.pool.query('create schema jobs_behind');
    for (const m of JOBS_MIGRATIONS.filter((m) => m.id < 18))
      await db.pool.query(qualify(m.sql, 'jobs_behind'));
    const behind = await postgresBackend(
      { url: db.url },
      { migrate: false, schema: 'jobs_behind' },
    );
    await behind.close();

    await migrate(db.executor);
    const migrated = await postgresBackend({ url: db.url }, { migrate: false });
    await migrated.close();
  });
});
