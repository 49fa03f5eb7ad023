/**
 * A throwaway `redis-server` on a free loopback port: nothing persisted (`--save ''`, no append-only file),
 * `noeviction` as BullMQ requires. Started by `bench:peers` only when a Redis peer is selected (`bullmq`, `ours-redis`,
 * `floor-redis`), by `npm run bench`'s `redis` section and by `quiet-spell.mjs` for a Redis peer; stopped at their end.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nothing listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The version of the `redis-server` on the PATH (`?` when it does not say), or null when there is none. */
export function redisServerVersion() {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return probe.error ? null : (probe.stdout.trim().split(' ')[2] ?? '?');
}

/** Answers `{ url, version, stop }`; throws with the install hint when `redis-server` is not on the PATH. */
export async function startRedis() {
  const version = redisServerVersion();
  if (version === null)
    throw new Error(
      'redis-server not found: install it (`apt-get install -y redis-server`) or leave the Redis peers out (BENCH_PEERS)',
    );
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${seen}`)));
  });
  child.stdout.resume();
  // never outlive the bench, even when it dies on an error
  process.once('exit', () => child.kill('SIGTERM'));
  return {
    url: `redis://127.0.0.1:${port}`,
    version,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}
