import { Redis } from 'ioredis';
import { settledWithin, until } from '../../../test/until';
import { partitionHop, type PartitionHop } from '../../../test/partition-hop';
import { testRedisUrl } from '../test/test-redis';
import { redisBackend } from './redis-backend';

/**
 * A hop that forwards both ways until the server's answer to a PING (`+PONG`) has gone through, and from then on
 * swallows everything: a Redis that answered the boot's PING and went silent before its eviction-policy check
 * (`INFO memory`) — a partition, or a proxy that lost its server.
 */
const silentAfterPongHop = (upstreamPort: number): Promise<PartitionHop> =>
  partitionHop(upstreamPort, { cutAfter: (fromServer) => fromServer.includes('+PONG\r\n') });

/**
 * The boot's bound: it covers the connect and the PING too, which must get through before the silence the cases are
 * about, so it is long enough for both on a loaded machine (300 ms gave out in the connect on PostgreSQL under CI).
 */
const TIMEOUT_MS = 1_500;

describe('redisBackend over a Redis that answers the PING and then goes silent', () => {
  it("fails the boot within connectTimeoutMs on a caller's client (maxRetriesPerRequest: null)", async () => {
    const hop = await silentAfterPongHop(Number(new URL(testRedisUrl()).port));
    const client = new Redis(hop.port, '127.0.0.1', { maxRetriesPerRequest: null });
    client.on('error', () => undefined);
    try {
      await new Promise<void>((resolve) => client.once('ready', () => resolve()));
      const startedAt = Date.now();
      const outcome = await settledWithin(
        redisBackend({ client, connectTimeoutMs: TIMEOUT_MS }),
        5_000,
      );
      expect(hop.wasCut()).toBe(true); // the PING was answered: it is the check after it that met the silence
      expect(outcome).toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.stringContaining(`did not answer within ${TIMEOUT_MS} ms`),
        fix: expect.stringContaining('connectTimeoutMs'),
      });
      expect(Date.now() - startedAt).toBeLessThan(TIMEOUT_MS + 3_500);
    } finally {
      client.disconnect();
      await hop.stop();
    }
  });

  it('fails the boot within connectTimeoutMs on a client it opened, and ends that client', async () => {
    const hop = await silentAfterPongHop(Number(new URL(testRedisUrl()).port));
    try {
      const outcome = await settledWithin(
        redisBackend({ url: `redis://127.0.0.1:${hop.port}`, connectTimeoutMs: TIMEOUT_MS }),
        5_000,
      );
      expect(hop.wasCut()).toBe(true);
      expect(outcome).toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.stringContaining(`did not answer within ${TIMEOUT_MS} ms`),
      });
      await until(() => hop.ended() === 1); // the client it opened let the socket go
    } finally {
      await hop.stop();
    }
  });
});
