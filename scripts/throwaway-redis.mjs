/**
 * A throwaway `redis-server` on a free loopback port, with its working directory in a fresh temp directory: what the
 * jest global setup starts for the Redis driver's tests. Nothing is persisted unless `aof` is asked for (a test that
 * restarts the server and expects its jobs back), and `maxmemory-policy noeviction` is set explicitly: a job store
 * must never have keys evicted under it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.mjs';
import { sweepStaleTempDirs } from './stale-temp-dirs.mjs';

/** Answers true once the server at `port` replies `+PONG` to an inline `PING`, false on any failure. */
function pings(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/**
 * Starts one server. `name` prefixes its temp directory; `aof: true` turns the append-only file on (fsync every
 * second) in that directory. `port` and `dir` restart a stopped server where it was (a test of a Redis restart):
 * `stop({ keepDir: true })` leaves the directory for that. `args` are more `redis-server` flags (`['--cluster-enabled',
 * 'yes']`). Answers `{ url, port, dir, pid, stop }`; a server that does
 * not answer a PING within `timeoutMs` is killed and the start throws with `hint` and what it printed.
 */
export async function startThrowawayRedis({
  name = 'jobs-redis',
  aof = false,
  hint = '',
  timeoutMs = 10_000,
  port: fixedPort,
  dir: fixedDir,
  args: extra = [],
} = {}) {
  const port = fixedPort ?? (await freePort());
  if (fixedDir === undefined) sweepStaleTempDirs(name); // what a run cut short before its stop() left
  const dir = fixedDir ?? mkdtempSync(join(tmpdir(), `${name}-${process.pid}-`));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    aof ? 'yes' : 'no',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
    ...extra,
  ];
  const output = [];
  let exited = null;
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk) => output.push(String(chunk)));
  child.stderr.on('data', (chunk) => output.push(String(chunk)));
  child.on('error', (error) => {
    exited = error;
  });
  child.on('exit', (code, signal) => {
    exited = exited ?? new Error(`redis-server exited (${signal ?? code})`);
  });
  // the server must not keep a test runner alive on its own
  child.unref();
  child.stdout.unref?.();
  child.stderr.unref?.();

  const stop = async ({ keepDir = false } = {}) => {
    if (exited === null) {
      let timer;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // bounded, and the bound cleared once it exited: a pending timer would hold the test runner open
      await Promise.race([gone, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      if (exited === null) child.kill('SIGKILL');
    }
    if (!keepDir) rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  while (!(await pings(port))) {
    if (exited !== null || Date.now() > deadline) {
      await stop();
      const why = exited === null ? 'no PING reply' : String(exited);
      throw new Error(`redis-server did not start${hint}: ${why} ${output.join('').trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, port, dir, pid: child.pid, stop };
}
