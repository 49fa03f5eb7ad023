import { Cluster } from 'ioredis';
import { until } from '../../../test/until';
import { startFailoverCluster, type FailoverCluster } from '../test/failover-cluster';
import { redisWake, type RedisWake } from './redis-wake';

/**
 * On a Redis Cluster the wake subscribes at the master that owns its channel's slot. A failover ends that subscription
 * — the demoted master drops it with an unsolicited `sunsubscribe` while the connection stays up, a killed master's
 * connection fails — and the wake must subscribe at the new owner by itself: before, it stayed "live" on a dropped
 * subscription (idle claims skipped while announcements went unheard) or reconnected to the dead node forever.
 */
describe('the Redis wake on a Cluster across failovers', () => {
  let cluster: FailoverCluster;
  let client: Cluster;
  let wake: RedisWake | undefined;
  beforeAll(async () => {
    cluster = await startFailoverCluster('wake-failover');
    const { hostname, port } = new URL(cluster.seedUrl);
    client = new Cluster([{ host: hostname, port: Number(port) }]);
    client.on('error', () => undefined);
    await new Promise<void>((resolve) => client.once('ready', () => resolve()));
  }, 60_000);
  afterAll(async () => {
    await wake?.close();
    client?.disconnect();
    await cluster?.stop();
  });

  it('is not live while the owner changes, then live again at the new owner and hears what is announced there', async () => {
    const heard: string[] = [];
    const liveness: boolean[] = [];
    wake = redisWake(client, '{wake-failover}:');
    wake.listen({
      signalEnqueued: (queue) => heard.push(queue),
      setWakeLive: (live) => liveness.push(live),
    });
    const w = wake;
    await until(() => w.live);
    await client.spublish('{wake-failover}:wake', 'before');
    await until(() => heard.includes('before'));

    const faults: [string, () => Promise<void>][] = [
      ['coordinated', () => cluster.failover()],
      ['master killed', () => cluster.killOwner()],
    ];
    for (const [name, fault] of faults) {
      const seen = liveness.length;
      await fault();
      await until(() => liveness.slice(seen).includes(false) && w.live, 20_000);
      await client.spublish('{wake-failover}:wake', `after ${name}`);
      await until(() => heard.includes(`after ${name}`));
    }
    expect(heard).toEqual(['before', 'after coordinated', 'after master killed']);
  }, 60_000);
});
