/**
 * A throwaway Redis Cluster that can fail over the master of one deployment (the wake spec, chaos scenario 8): three
 * masters (the slots split three ways, as `throwaway-cluster.ts` builds them, which has no replicas) plus one replica
 * of the master that owns the deployment's hash tag — every key of a deployment lives in that one slot, so that master
 * is the one whose failover matters. Each node runs with the append-only file on and a 1 s node timeout (a killed
 * master is replaced within a few seconds).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startThrowawayRedis, type ThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';

const run = promisify(execFile);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const NODE_ARGS = ['--cluster-enabled', 'yes', '--cluster-node-timeout', '1000'];

/** The cluster and its faults. */
export interface FailoverCluster {
  /** A seed node's URL (any master that never fails over). */
  readonly seedUrl: string;
  /** The port of the node that owns the deployment's slot now. */
  readonly ownerPort: number;
  /** `CLUSTER FAILOVER` on the replica: a coordinated switch (the master waits for the replica to catch up). */
  failover(): Promise<void>;
  /**
   * SIGKILLs the owner; the replica is elected once the others see it fail (the killed node stays down: the deployment
   * has no replica left, so this is the last failover a run can do).
   */
  killOwner(): Promise<void>;
  stop(): Promise<void>;
}

/** Polls `check` every 50 ms until it holds, or throws naming `what` after `ms`. */
async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`failover cluster: no ${what} within ${ms} ms`);
    await sleep(50);
  }
}

/** A one-off command to the node on `port`. */
async function ask(port: number, ...args: string[]): Promise<string> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return String(await client.call(args[0]!, ...args.slice(1)));
  } finally {
    client.disconnect();
  }
}

/** The id of the master serving `slot` in `port`'s view of the cluster, and that master's port. */
async function masterOf(port: number, slot: number): Promise<{ id: string; port: number }> {
  for (const line of (await ask(port, 'CLUSTER', 'NODES')).trim().split('\n')) {
    const [id, address, flags, , , , , , ...ranges] = line.split(' ');
    if (!flags?.includes('master') || flags.includes('fail')) continue;
    for (const range of ranges) {
      const [from, to] = range.split('-').map(Number);
      if (slot >= from! && slot <= (to ?? from)!)
        return { id: id!, port: Number(address!.split(':')[1]!.split('@')[0]) };
    }
  }
  throw new Error(`failover cluster: no master serves slot ${slot}`);
}

/** Starts the cluster for the deployment `prefix` (its keys are `{prefix}:…`). */
export async function startFailoverCluster(prefix: string): Promise<FailoverCluster> {
  const nodes: ThrowawayRedis[] = [];
  try {
    for (let i = 0; i < 4; i++)
      nodes.push(
        await startThrowawayRedis({ name: `chaos-cluster-${i}`, aof: true, args: NODE_ARGS }),
      );
    const [a, b, c, spare] = nodes as [
      ThrowawayRedis,
      ThrowawayRedis,
      ThrowawayRedis,
      ThrowawayRedis,
    ];
    await run('redis-cli', [
      '--cluster',
      'create',
      ...[a, b, c].map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const slot = Number(await ask(a.port, 'CLUSTER', 'KEYSLOT', `{${prefix}}:x`));
    const owner = await masterOf(a.port, slot);
    await ask(spare.port, 'CLUSTER', 'MEET', '127.0.0.1', String(owner.port));
    await until('replica meeting its master', async () =>
      (await ask(spare.port, 'CLUSTER', 'NODES')).includes(owner.id),
    );
    await ask(spare.port, 'CLUSTER', 'REPLICATE', owner.id);
    const spareId = await ask(spare.port, 'CLUSTER', 'MYID');
    await until('replica in sync and known to every master', async () => {
      if (!(await ask(spare.port, 'INFO', 'replication')).includes('master_link_status:up'))
        return false;
      for (const n of [a, b, c]) {
        const view = (await ask(n.port, 'CLUSTER', 'NODES'))
          .split('\n')
          .find((l) => l.startsWith(spareId));
        if (!view?.includes(`slave ${owner.id}`)) return false;
      }
      return true;
    });
    const seed = [a, b, c].find((n) => n.port !== owner.port)!;
    let ownerPort = owner.port;
    const byPort = (port: number): number => nodes.findIndex((n) => n.port === port);
    /** Waits until every live master agrees `port` owns the slot and the cluster is ok. */
    const agreed = async (port: number, live: readonly ThrowawayRedis[]): Promise<void> =>
      until('agreement on the new owner', async () => {
        for (const n of live) {
          if ((await masterOf(n.port, slot)).port !== port) return false;
          if (!(await ask(n.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
        }
        return true;
      });
    const replicaPort = (): number => [owner.port, spare.port].find((p) => p !== ownerPort)!;
    return {
      seedUrl: seed.url,
      get ownerPort() {
        return ownerPort;
      },
      async failover() {
        const next = replicaPort();
        await ask(next, 'CLUSTER', 'FAILOVER');
        await agreed(next, nodes);
        ownerPort = next;
      },
      async killOwner() {
        const victim = nodes[byPort(ownerPort)]!;
        const next = replicaPort();
        process.kill(victim.pid!, 'SIGKILL');
        await agreed(
          next,
          nodes.filter((n) => n !== victim),
        );
        ownerPort = next;
      },
      async stop() {
        await Promise.all(nodes.map((n) => n.stop()));
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw error;
  }
}
