import { Redis } from 'ioredis';
import { errorCodeOf } from '@ultimat3/jobs';
import { enqueueRequest, unclaimedAcks } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { testRedisUrl } from '../test/test-redis';
import { redisJobDriver } from './redis-driver';

/**
 * ioredis fails a command with "Connection is closed." when its connection closes, whether the command was still
 * queued or already on the wire: the driver answers it `X_DRIVER_UNAVAILABLE`, as the connection lost. A batch of acks
 * then fails at once in the worker's ack batcher (each run sends its own again while its lease lasts) rather than
 * being resent ack by ack into the outage; an enqueue says it may or may not have landed (enqueue again: the key
 * answers the row if it did). Over a live connection the same batch answers, each ack fenced on its own claim.
 */
describe('the Redis driver over a connection that closed', () => {
  const file = testRedisSpec();

  it('names a connection that closed X_DRIVER_UNAVAILABLE', async () => {
    const client = new Redis(testRedisUrl());
    client.on('error', () => undefined);
    await client.ping();
    try {
      const driver = redisJobDriver({ client, prefix: file.redis.prefix() });
      expect(await driver.ackMany!(unclaimedAcks(2))).toEqual([false, false]); // no such claims: answered, not thrown
      client.disconnect();
      const error = await driver.ackMany!(unclaimedAcks(3)).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(errorCodeOf(error)).toBe('X_DRIVER_UNAVAILABLE');
      expect(String(error)).toMatch(
        /^SettleUnavailableError: Redis is out of reach \(.+\): the batch's settles may or may not have been written\./,
      );
    } finally {
      client.disconnect();
    }
  });

  it('an enqueue whose connection closes under it is X_DRIVER_UNAVAILABLE, saying it may have landed', async () => {
    const client = new Redis(testRedisUrl());
    client.on('error', () => undefined);
    await client.ping();
    try {
      const driver = redisJobDriver({ client, prefix: file.redis.prefix() });
      const sent = driver.enqueue(enqueueRequest({ name: 'ack-many-outage.job', queue: 'q' }));
      client.disconnect(); // the script is on the wire, its answer never comes
      const error = await sent.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(errorCodeOf(error)).toBe('X_DRIVER_UNAVAILABLE');
      expect(String(error)).toContain('may or may not be queued');
    } finally {
      client.disconnect();
    }
  });
});
