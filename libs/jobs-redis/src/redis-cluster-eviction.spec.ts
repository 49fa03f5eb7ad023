import type { Redis } from 'ioredis';
import { startThrowawayCluster, type ThrowawayCluster } from '../test/throwaway-cluster';
import { redisBackend } from './redis-backend';
import { redisJobDriver } from './redis-driver';
import { enqueueRequest } from '../../jobs/test/requests';

let cluster: ThrowawayCluster;

beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The master owning the slot of deployment `prefix`, and the other masters. */
async function mastersOf(prefix: string): Promise<{ owner: Redis; others: Redis[] }> {
  const slot = Number(await cluster.client.cluster('KEYSLOT', `{${prefix}}:x`));
  const ranges = await cluster.client.cluster('SLOTS');
  const port = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1];
  const masters = cluster.client.nodes('master');
  return {
    owner: masters.find((n) => n.options.port === port)!,
    others: masters.filter((n) => n.options.port !== port),
  };
}

const setPolicy = (nodes: readonly Redis[], policy: string): Promise<unknown> =>
  Promise.all(nodes.map((n) => n.config('SET', 'maxmemory-policy', policy)));

describe('the eviction-policy check on a Redis Cluster', () => {
  afterEach(async () => {
    await setPolicy(cluster.client.nodes('master'), 'noeviction');
  });

  it("asks the master owning the deployment's slot, whichever node a keyless command would reach", async () => {
    const prefix = 'evict-owner';
    const { owner, others } = await mastersOf(prefix);
    await setPolicy([owner], 'allkeys-lru');
    // a keyless INFO lands on a random master: several boots, so one that asked a wrong node would show
    for (let i = 0; i < 6; i++) {
      await expect(redisBackend({ client: cluster.client, prefix })).rejects.toMatchObject({
        code: 'X_REDIS_EVICTION_POLICY',
      });
    }
    const driver = redisJobDriver({ client: cluster.client, prefix });
    await expect(driver.enqueue(enqueueRequest({ queue: 'q' }))).rejects.toMatchObject({
      code: 'X_REDIS_EVICTION_POLICY',
    });

    // the other masters hold none of the deployment's keys: their policy is theirs
    await setPolicy([owner], 'noeviction');
    await setPolicy(others, 'allkeys-lru');
    for (let i = 0; i < 6; i++) {
      const backend = await redisBackend({ client: cluster.client, prefix });
      await backend.close();
    }
  });
});
