import { jobDriverConformance, schedulerStateConformance } from '@ultimat3/jobs/testing';
import { startThrowawayCluster, type ThrowawayCluster } from '../test/throwaway-cluster';
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

jobDriverConformance('redis cluster (3 masters)', (clock) =>
  redisJobDriver({ client: cluster.client, prefix: prefix(), clock }),
);

schedulerStateConformance('redis cluster (3 masters)', (clock) => {
  const driver = redisJobDriver({ client: cluster.client, prefix: prefix(), clock });
  return { state: driver.schedulerState, driver };
});

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
