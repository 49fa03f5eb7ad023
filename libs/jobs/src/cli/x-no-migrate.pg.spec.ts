import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { testDatabaseUrl } from '../../../../test/test-env';
import { runX } from './program';

/**
 * An operator's command never changes the schema: `x` opens PostgreSQL without migrating (the app's boot migrates),
 * so pointed at a schema with no jobs tables it fails and leaves the schema as empty as it found it.
 */
describe('x against a PostgreSQL schema nobody migrated', () => {
  const url = testDatabaseUrl();
  const schema = `x_unmigrated_${randomBytes(5).toString('hex')}`;
  const sql = new Client({ connectionString: url });

  beforeAll(async () => {
    await sql.connect();
    await sql.query(`create schema ${schema}`);
  });
  afterAll(async () => {
    await sql.query(`drop schema if exists ${schema} cascade`);
    await sql.end();
  });

  it('fails with exit 1, saying the tables are missing and how to migrate, and creates no table', async () => {
    const err: string[] = [];
    const code = await runX(['queues', 'list', '--url', url, '--schema', schema], {
      env: {},
      cwd: process.cwd(),
      streams: { out: () => undefined, err: (s) => err.push(s) },
    });
    expect([code, err.join('\n')]).toEqual([
      1,
      expect.stringMatching(/^error X_DRIVER_UNAVAILABLE/),
    ]);
    expect(err.join('\n')).toContain('finds no jobs tables (x_jobs)');
    expect(err.join('\n')).toContain(`schema "${schema}"`);
    expect(err.join('\n')).toContain('--schema');
    const { rows } = await sql.query<{ n: string }>(
      'select count(*) as n from information_schema.tables where table_schema = $1',
      [schema],
    );
    expect(rows).toEqual([{ n: '0' }]);
  });
});
