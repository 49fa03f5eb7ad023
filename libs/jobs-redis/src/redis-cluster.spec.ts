import { backendConformance } from '@ultimat3/jobs/testing';
import { startThrowawayCluster, type ThrowawayCluster } from '../test/throwaway-cluster';
import { until } from '../../../test/until';
import { enqueueRequest } from '../../jobs/test/requests';
import { REDIS_CAPABILITIES, redisBackendOver } from './redis-backend';
import { redisJobDriver } from './redis-driver';

let cluster: ThrowawayCluster;
let n = 0;

beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

// each test its own hash tag: the deployments land in slots spread over the three masters
const prefix = (): string => `cluster-${n++}`;

backendConformance('redis cluster (3 masters)', REDIS_CAPABILITIES, (clock) =>
  redisBackendOver({ client: cluster.client, prefix: prefix(), clock }),
);

describe('the cluster under the conformance suite', () => {
  it('spreads the suite’s deployments over all three masters, each deployment in one slot', async () => {
    const ranges = await cluster.client.cluster('SLOTS');
    const masterOf = (slot: number): number | undefined =>
      ranges.find(([from, to]) => slot >= from && slot <= to)?.[2]?.[1];
    const used = new Set<number>();
    for (let i = 0; i < n; i++) {
      const slots = new Set(
        await Promise.all(
          [`{cluster-${i}}:j:x`, `{cluster-${i}}:live`, `{cluster-${i}}:q:1:q:r:a`].map(
            async (key) => Number(await cluster.client.cluster('KEYSLOT', key)),
          ),
        ),
      );
      expect(slots.size).toBe(1);
      used.add(masterOf([...slots][0]!) ?? -1);
    }
    expect(used.has(-1)).toBe(false);
    expect(used.size).toBe(3);
  });
});

describe('the wake on the cluster', () => {
  it("subscribes on the master of each deployment's slot: another driver's enqueue is announced there", async () => {
    // three deployments whose hash tags hash to slots 1339, 9593 and 13656: one on each of the three masters
    for (const name of ['wake-a', 'wake-b', 'wake-c']) {
      const listening = redisJobDriver({ client: cluster.client, prefix: name });
      const enqueuing = redisJobDriver({ client: cluster.client, prefix: name });
      const seen: string[] = [];
      let live = false;
      const stop = listening.wake.listen({
        signalEnqueued: (queue) => seen.push(queue),
        setWakeLive: (next) => {
          live = next;
        },
      });
      try {
        await until(() => live);
        await enqueuing.enqueue(
          enqueueRequest({
            name: 'cluster.wake',
            queue: `q-${name}`,
            input: null,
            idempotencyKey: 'k',
            maxAttempts: 1,
          }),
        );
        await until(() => seen.includes(`q-${name}`));
      } finally {
        await stop();
      }
      expect(listening.wake.live).toBe(false);
    }
  });
});
