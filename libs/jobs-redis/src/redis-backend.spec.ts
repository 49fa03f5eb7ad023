import { claimOf, uuidv7, type EnqueueRequest } from '@ultimat3/jobs';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { enqueueRequest } from '../../jobs/test/requests';
import { silentHost } from '../../../test/silent-host';
import { until } from '../../../test/until';
import { testRedisUrl } from '../test/test-redis';
import { redisBackend } from './redis-backend';

const run = promisify(execFile);
const TEST_DIR = join(__dirname, '..', 'test');
/** Runs a child from the TypeScript sources (the one register every workspace's spec children use). */
const SWC_REGISTER = join(__dirname, '..', '..', 'jobs-pg', 'test', 'swc-register.js');

const request = (id: string): EnqueueRequest =>
  enqueueRequest({
    id,
    name: 'backend.job',
    queue: 'q',
    input: {},
    idempotencyKey: id,
    runAt: 0,
    maxAttempts: 1,
  });

describe('redisBackend', () => {
  it('opens the driver and the event bus on one client, and close() quits the client it opened', async () => {
    const prefix = `backend-${uuidv7()}`;
    const backend = await redisBackend({ url: testRedisUrl(), prefix });
    const id = uuidv7();
    await backend.driver.enqueue(request(id));
    const [row] = await backend.driver.claim({
      workerId: 'w',
      visibilityTimeoutMs: 1_000,
      slots: [{ queue: 'q', limit: 1 }],
    });
    expect(row?.id).toBe(id);
    expect(await backend.driver.ack(id, claimOf(row!))).toBe(true);
    const since = await backend.events.now();
    await backend.events.publish('backend.event', { ok: true });
    expect((await backend.events.find('backend.event', since))?.payload).toEqual({ ok: true });
    await backend.driver.introspect.remove(id);
    await backend.events.reset();

    await backend.close();
    await expect(backend.driver.ping!()).rejects.toThrow();
  });

  it('refuses to boot on a Redis it cannot reach: X_DRIVER_UNAVAILABLE with the fix', async () => {
    await expect(
      redisBackend({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 500 }),
    ).rejects.toMatchObject({
      code: 'X_DRIVER_UNAVAILABLE',
      fix: expect.stringContaining('redis.url'),
    });
  });

  it('refuses a malformed URL or another scheme at once, coded, never repeating the URL (it may hold a password)', async () => {
    for (const url of [
      'redis://:s3cret@:6379', // no host: ioredis threw a bare TypeError carrying the URL
      'redis://user:s3cret@cache:port/0',
      'mysql://root:s3cret@127.0.0.1:1/app', // ioredis took it for a socket path, and the boot said it back
    ]) {
      const startedAt = Date.now();
      const failure: unknown = await redisBackend({ url, connectTimeoutMs: 5_000 }).then(
        () => 'booted',
        (error: unknown) => error,
      );
      expect(Date.now() - startedAt).toBeLessThan(1_000);
      expect(failure).toMatchObject({ code: 'X_DRIVER_UNAVAILABLE', meta: { reason: 'url' } });
      const { message, fix, meta } = failure as { message: string; fix: string; meta: unknown };
      expect(JSON.stringify({ message, fix, meta })).not.toContain('s3cret');
      expect((failure as Error).cause).toBeUndefined();
    }
  });

  it('says at boot what failed: Redis out of reach, no job it did not queue', async () => {
    const failure: unknown = await redisBackend({
      url: 'redis://127.0.0.1:1',
      connectTimeoutMs: 500,
    }).then(
      () => 'booted',
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      code: 'X_DRIVER_UNAVAILABLE',
      message: expect.stringMatching(/^Redis is out of reach at boot \(/),
    });
    // what the client met while it retried is said beside the bound: here nothing accepts the connection
    expect(String((failure as Error).message)).toMatch(
      /did not answer within 500 ms; its connection's last failure: connect ECONNREFUSED 127\.0\.0\.1:1/,
    );
    expect(String((failure as Error).message)).not.toMatch(/job was not queued/);
  });

  it('refuses, within connectTimeoutMs, a host that accepts TCP and never answers, and lets its socket go', async () => {
    const host = await silentHost();
    try {
      const startedAt = Date.now();
      await expect(
        redisBackend({ url: `redis://127.0.0.1:${host.port}`, connectTimeoutMs: 300 }),
      ).rejects.toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.stringContaining('did not answer within 300 ms'),
        fix: expect.stringContaining('connectTimeoutMs'),
      });
      const took = Date.now() - startedAt;
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(5_000);
      expect(host.sockets).toHaveLength(1);
      await until(() => host.closed() === 1); // the client it opened let the socket go
    } finally {
      await host.stop();
    }
  });

  // in a process of their own, so that no other spec's timers are counted: after a failed boot, or the close of a
  // driver whose own client waits to reconnect, nothing of ioredis holds the process (no reconnect, socket or
  // disconnect timer)
  it.each([
    ['boot', 'X_DRIVER_UNAVAILABLE'],
    ['close', 'closed'],
  ])('leaves no timer or socket behind: %s', async (mode, outcome) => {
    const { stdout } = await run(
      process.execPath,
      ['-r', SWC_REGISTER, join(TEST_DIR, 'unreachable-client.ts'), mode],
      { timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toEqual({ outcome, handles: [] });
  });
});
