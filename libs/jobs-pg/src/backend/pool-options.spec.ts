import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { request } from '../../test/requests';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresBackend } from './pg-backend';
import { KEEPALIVE_DELAY_MS, POOL_IDLE_TIMEOUT_MS, poolOptions } from './pool-options';

describe('poolOptions', () => {
  it('keeps one connection open by default, named, bounded in its connect, kept alive by TCP probes', () => {
    expect(poolOptions('postgres://h/d', {}, 5_000)).toEqual({
      connectionString: 'postgres://h/d',
      max: 10,
      min: 1,
      idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
      application_name: 'ultimat3-jobs',
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      allowExitOnIdle: true,
    });
    expect(poolOptions('postgres://h/d', { poolSize: 1 }, 5_000)).toMatchObject({ max: 1, min: 1 });
    expect(poolOptions('postgres://h/d', { poolSize: 4, idleConnections: 4 }, 5_000)).toMatchObject(
      { max: 4, min: 4 },
    );
    expect(poolOptions('postgres://h/d', { idleConnections: 0 }, 5_000)).toMatchObject({ min: 0 });
  });

  it.each([
    [{ poolSize: 0 }, /poolSize must be a whole number from 1/],
    [{ poolSize: 2.5 }, /poolSize must be a whole number from 1/],
    [{ poolSize: '3' as unknown as number }, /poolSize must be a whole number from 1/],
    [{ idleConnections: -1 }, /idleConnections must be a whole number from 0 to 10; got -1/],
    [
      { poolSize: 2, idleConnections: 3 },
      /idleConnections must be a whole number from 0 to 2; got 3/,
    ],
  ])('refuses %j with X_INVARIANT', (shape, message) => {
    expect(() => poolOptions('postgres://h/d', shape, 5_000)).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT', message: expect.stringMatching(message) }),
    );
  });

  it('refuses a bad pool shape before anything connects', async () => {
    // nothing listens on port 1: a connect attempt would fail with X_DRIVER_UNAVAILABLE instead
    await expect(
      postgresBackend({ url: 'postgres://u:p@127.0.0.1:1/d', idleConnections: 11 }),
    ).rejects.toMatchObject({ code: 'X_INVARIANT' });
  });
});

describe('the pool a URL backend builds', () => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterEach(async () => {
    jest.useRealTimers();
    await db?.drop();
  });

  /** The backend's own sessions in the test database: its pool's connections, by backend pid. */
  const sessions = async (): Promise<number[]> => {
    const { rows } = await db.pool.query<{ pid: number }>(
      `select pid from pg_stat_activity
       where application_name = 'ultimat3-jobs' and datname = current_database() order by pid`,
    );
    return rows.map((row) => row.pid);
  };

  /** Waits for the server to see `n` sessions: a closed connection's backend exits a moment after its Terminate. */
  const untilSessions = async (n: number): Promise<number[]> => {
    for (let tries = 0; tries < 500; tries++) {
      const pids = await sessions();
      if (pids.length === n) return pids;
    }
    return sessions();
  };

  it('opens its kept connection at boot, warms it, and the first enqueue runs on it', async () => {
    const backend = await postgresBackend({ url: db.url, poolSize: 4 });
    try {
      const atBoot = await sessions();
      expect(atBoot).toHaveLength(1);
      // an idle session's last statement (its first 1,024 bytes): the warm, planned and let go (kept-warm.spec.ts)
      const { rows } = await db.pool.query<{ query: string }>(
        'select query from pg_stat_activity where pid = $1',
        [atBoot[0]],
      );
      expect(rows[0]?.query).toMatch(/^explain with h as \(/);
      await backend.driver.enqueue(request());
      expect(await sessions()).toEqual(atBoot);
    } finally {
      await backend.close();
    }
    expect(await untilSessions(0)).toEqual([]);
  });

  it('keeps that connection through a quiet spell that closes the others', async () => {
    const backend = await postgresBackend({ url: db.url, poolSize: 4 });
    try {
      // only the pool's idle timer is driven; its sockets and the server stay real
      jest.useFakeTimers({
        doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'performance', 'hrtime'],
      });
      // four statements at once: the pool opens three more connections
      await Promise.all(
        Array.from({ length: 4 }, () => backend.executor.query('select pg_sleep(0.05)', [])),
      );
      const busy = await sessions();
      expect(busy).toHaveLength(4);
      jest.advanceTimersByTime(POOL_IDLE_TIMEOUT_MS);
      const kept = await untilSessions(1);
      expect(kept).toHaveLength(1);
      expect(busy).toEqual(expect.arrayContaining(kept));
      await backend.driver.enqueue(request());
      expect(await sessions()).toEqual(kept);
    } finally {
      jest.useRealTimers();
      await backend.close();
    }
  });

  it('keeps none when told 0: every connection closes after the idle timeout', async () => {
    const backend = await postgresBackend({ url: db.url, poolSize: 2, idleConnections: 0 });
    try {
      expect(await sessions()).toEqual([]);
      jest.useFakeTimers({
        doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'Date', 'performance', 'hrtime'],
      });
      await backend.driver.enqueue(request());
      expect(await sessions()).toHaveLength(1);
      jest.advanceTimersByTime(POOL_IDLE_TIMEOUT_MS);
      expect(await untilSessions(0)).toEqual([]);
    } finally {
      jest.useRealTimers();
      await backend.close();
    }
  });
});

/**
 * The README's Deploy section: "A `web`-only process […] is never held open." A script that opened a backend from a
 * URL, used it and never closed it ends by itself: the kept connection idles without holding the event loop.
 */
describe('a process that never closes its URL backend', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('ends by itself once the statements are done: the kept idle connection does not hold it open', async () => {
    const script = `
      const { postgresBackend } = require('@ultimat3/jobs-pg');
      postgresBackend({ url: process.argv[1] })
        .then((backend) => backend.executor.query('select 1', []))
        .then(() => console.log('queried'), (error) => { console.error(error); process.exit(2); });`;
    const child = spawn(
      process.execPath,
      ['-r', join(__dirname, '..', '..', 'test', 'swc-register.js'), '-e', script, db.url],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // held open, it would never exit: the bound ends the wait (and the child) instead
    const bound = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (c, s) => resolve([c, s])),
    );
    clearTimeout(bound);
    expect(out).toContain('queried');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  }, 30_000);
});
