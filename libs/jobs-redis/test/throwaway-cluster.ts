import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { startThrowawayRedis, type ThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';

const run = promisify(execFile);

/** A throwaway Redis Cluster of three masters (no replicas) on loopback, and a client over it. */
export interface ThrowawayCluster {
  readonly client: Cluster;
  readonly nodes: readonly ThrowawayRedis[];
  stop(): Promise<void>;
}

/**
 * Starts three `redis-server --cluster-enabled yes`, joins them with `redis-cli --cluster create` (the 16,384 slots
 * split three ways) and answers an ioredis Cluster client once it sees every slot served.
 */
export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const nodes: ThrowawayRedis[] = [];
  const stopNodes = async (): Promise<void> => {
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    for (let i = 0; i < 3; i++) {
      nodes.push(
        await startThrowawayRedis({
          name: `jobs-redis-cluster-${i}`,
          args: ['--cluster-enabled', 'yes', '--cluster-node-timeout', '5000'],
        }),
      );
    }
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...addresses,
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const client = new Cluster(nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('error', reject);
    });
    // the slots are agreed once every node reports the cluster ok
    for (;;) {
      const states = await Promise.all(client.nodes('master').map((n) => n.cluster('INFO')));
      if (states.length === 3 && states.every((s) => String(s).includes('cluster_state:ok'))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return {
      client,
      nodes,
      async stop() {
        client.disconnect();
        await stopNodes();
      },
    };
  } catch (error) {
    await stopNodes();
    throw error;
  }
}
