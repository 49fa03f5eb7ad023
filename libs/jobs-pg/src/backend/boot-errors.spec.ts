import 'reflect-metadata';
import { Client } from 'pg';
import { Test } from '@nestjs/testing';
import { errorCodeOf, JobsError, JobsModule } from '@ultimat3/jobs';
import { testDatabaseUrl } from '../../../../test/test-env';
import { silentHost } from '../../../../test/silent-host';
import { until } from '../../../../test/until';
import { withDatabase } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresBackend } from './pg-backend';
import { freePort } from '../../../../scripts/free-port.mjs';

/** `url` with its password swapped, its user, host or port changed. */
function variant(
  url: string,
  change: Partial<Record<'password' | 'port' | 'host', string>>,
): string {
  const next = new URL(url);
  if (change.password !== undefined) next.password = change.password;
  if (change.port !== undefined) next.port = change.port;
  if (change.host !== undefined) next.hostname = change.host;
  return next.toString();
}

/** The boot's error, checked for what every boot error must carry: the code, and never the password. */
async function bootError(boot: Promise<unknown>, password: string): Promise<JobsError> {
  const error = await boot.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JobsError);
  const coded = error as JobsError;
  expect(errorCodeOf(coded)).toBe('X_DRIVER_UNAVAILABLE');
  expect(
    JSON.stringify({ message: coded.message, fix: coded.fix, meta: coded.meta }),
  ).not.toContain(password);
  return coded;
}

describe('postgresBackend: every way the database can be wrong at boot is a coded error naming where and what to fix', () => {
  let password: string;

  const db = pgJobsSpec({ migrate: false });
  beforeAll(async () => {
    password = decodeURIComponent(new URL(db.url).password);
    expect(password).not.toBe('');
  });

  it('a refused port: names host, port and database, and the option to fix', async () => {
    const port = await freePort();
    const error = await bootError(
      postgresBackend({ url: variant(db.url, { port: String(port) }) }),
      password,
    );
    expect(error.meta).toMatchObject({
      reason: 'refused',
      target: { host: '127.0.0.1', port, database: db.name },
    });
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain(db.name);
    expect(error.fix).toContain('postgres.url');
  });

  it('an unknown database', async () => {
    const url = withDatabase(db.url, `${db.name}_missing`);
    const error = await bootError(postgresBackend({ url }), password);
    expect(error.meta).toMatchObject({
      reason: 'unknown-database',
      target: { database: `${db.name}_missing` },
    });
    expect(error.fix).toContain(`createdb ${db.name}_missing`);
  });

  it('bad credentials', async () => {
    const wrong = `${password}-wrong`;
    const error = await bootError(
      postgresBackend({ url: variant(db.url, { password: wrong }) }),
      wrong,
    );
    expect(error.meta).toMatchObject({ reason: 'auth', target: { user: 'postgres' } });
    expect(error.message).not.toContain(password);
  });

  it('a malformed URL, never repeated back (it may hold a password)', async () => {
    const malformed = `postgres//postgres:${password}@127.0.0.1/${db.name}`;
    const error = await bootError(postgresBackend({ url: malformed }), password);
    expect(error.meta).toMatchObject({ reason: 'url' });
    const mysql = await bootError(
      postgresBackend({ url: `mysql://root:${password}@127.0.0.1/app` }),
      password,
    );
    expect(mysql.meta).toMatchObject({ reason: 'url' });
  });

  it('a host that accepts TCP and never answers fails within connectTimeoutMs, and lets its socket go', async () => {
    const host = await silentHost();
    try {
      const startedAt = Date.now();
      const error = await bootError(
        postgresBackend(
          { url: variant(db.url, { port: String(host.port) }) },
          { connectTimeoutMs: 300 },
        ),
        password,
      );
      const took = Date.now() - startedAt;
      expect(error.meta).toMatchObject({
        reason: 'timeout',
        target: { host: '127.0.0.1', port: host.port },
      });
      expect(error.fix).toContain('postgres.connectTimeoutMs');
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(5_000);
      expect(host.sockets).toHaveLength(1);
      await until(() => host.closed() === 1); // the client let the socket go
    } finally {
      await host.stop();
    }
  });

  it('through JobsModule: the silent host fails the Nest boot with the same error', async () => {
    const host = await silentHost();
    try {
      const compiling = Test.createTestingModule({
        imports: [
          JobsModule.forRoot({
            driver: 'postgres',
            postgres: { url: variant(db.url, { port: String(host.port) }), connectTimeoutMs: 300 },
            roles: ['web'],
          }),
        ],
      }).compile();
      const error = await bootError(compiling, password);
      expect(error.meta).toMatchObject({ reason: 'timeout' });
    } finally {
      await host.stop();
    }
  });

  it('a migration that cannot take its lock is bounded too, and its session is ended', async () => {
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      // the lock every installer takes first (see install-script.ts), held by another session
      await holder.query(`select pg_advisory_lock(hashtextextended('ultimat3-jobs:migrate', 0))`);
      // long enough for the connect on a loaded machine: the lock wait is the step that must give out
      const error = await bootError(
        postgresBackend({ url: db.url }, { connectTimeoutMs: 1_500 }),
        password,
      );
      expect(error.meta).toMatchObject({ reason: 'migrate-timeout' });
      expect(error.fix).toContain('migrate: false');
      await until(async () => {
        const { rows } = await holder.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where application_name = 'ultimat3-jobs-boot' and datname = current_database()`,
        );
        return rows[0]?.n === 0;
      });
    } finally {
      await holder.end();
    }
  });

  it('refuses a connectTimeoutMs that is not a positive number before connecting', async () => {
    const error = await postgresBackend({ url: db.url }, { connectTimeoutMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(errorCodeOf(error)).toBe('X_INVARIANT');
  });

  it('boots on the test server itself, as a control', async () => {
    const backend = await postgresBackend({
      url: testDatabaseUrl().replace(/\/[^/]*$/, `/${db.name}`),
    });
    await backend.close();
  });
});
