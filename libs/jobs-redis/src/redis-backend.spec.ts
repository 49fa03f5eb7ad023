import { claimOf, uuidv7 } from '@ultimat3/jobs';
import { testRedisUrl } from '../test/test-redis';
import { redisBackend } from './redis-backend';

describe('redisBackend', () => {
  it('opens the driver and the event bus on one client, and close() quits the client it opened', async () => {
    const prefix = `backend-${uuidv7()}`;
    const backend = await redisBackend({ url: testRedisUrl(), prefix });
    const id = uuidv7();
    await backend.driver.enqueue({
      id,
      runId: uuidv7(),
      name: 'backend.job',
      queue: 'q',
      input: {},
      idempotencyKey: id,
      tenantId: null,
      enqueuedBy: null,
      runAt: 0,
      maxAttempts: 1,
      priority: 0,
      onConflict: 'dedupe',
      concurrencyKey: null,
      traceparent: null,
    });
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

  // ioredis keeps a 2 s timer (its disconnectTimeout) after closing a client that never connected: a jest run of this
  // file alone exits that much later, not never
  it('refuses to boot on a Redis it cannot reach: X_DRIVER_UNAVAILABLE with the fix', async () => {
    await expect(
      redisBackend({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 500 }),
    ).rejects.toMatchObject({
      code: 'X_DRIVER_UNAVAILABLE',
      fix: expect.stringContaining('redis.url'),
    });
  });
});
