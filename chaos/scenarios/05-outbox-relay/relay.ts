/**
 * One outbox relay process of scenario 5, a chaos child (config {@link RelayConfig}): the product's `outboxRelay` over
 * the app database's outbox, publishing onto the run's jobs backend — with ONE kill point armed, injected by wrappers
 * around the driver and the store in this entry (the product has no switch for it). The process SIGKILLs itself:
 *
 * - `before-publish`: as its `killAt`-th publish is about to be sent;
 * - `after-publish`: right after its `killAt`-th publish landed, before the batch is marked;
 * - `during-mark`: with its `killAt`-th markPublished statement in flight (sent, a few ms of jitter, then killed — it
 *   may or may not have committed);
 * - `none`: no kill (the relays that finish the run).
 */
import { Pool } from 'pg';
import { outboxRelay, type JobDriver, type OutboxStore } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresOutboxStore } from '@ultimat3/jobs-pg';
import { chaosChildConfig, runChaosChild, serveChaosChild } from '../../harness/child';
import { openChaosDriver, type ChaosTarget } from '../../harness/drivers';

/** Where a relay incarnation kills itself. */
export type KillPoint = 'before-publish' | 'after-publish' | 'during-mark' | 'none';

/** The JSON config of one relay incarnation. */
export interface RelayConfig {
  readonly target: ChaosTarget;
  readonly appUrl: string;
  readonly outboxSchema: string;
  readonly claimant: string;
  readonly kill: KillPoint;
  /** Which publish (or mark) the kill comes at, counted from 1. */
  readonly killAt: number;
  /** Milliseconds a killed mark is left in flight (0–3). */
  readonly markJitterMs: number;
  readonly claimLeaseMs: number;
}

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: SIGKILL');
};

/** The driver, killing this process around its `killAt`-th publish when the kill point says so. */
function killingDriver(inner: JobDriver, c: RelayConfig): JobDriver {
  let publishes = 0;
  return {
    ...inner,
    enqueue: async (request) => {
      publishes++;
      if (c.kill === 'before-publish' && publishes === c.killAt) die();
      const result = await inner.enqueue(request);
      if (c.kill === 'after-publish' && publishes === c.killAt) die();
      return result;
    },
  };
}

/** The store, killing this process with its `killAt`-th mark in flight when the kill point says so. */
function killingStore(inner: OutboxStore, c: RelayConfig): OutboxStore {
  let marks = 0;
  return {
    ...inner,
    markPublished: (ids, claimant) => {
      marks++;
      const sent = inner.markPublished(ids, claimant);
      if (c.kill === 'during-mark' && marks === c.killAt) setTimeout(die, c.markJitterMs);
      return sent;
    },
  };
}

async function main(): Promise<void> {
  const c = chaosChildConfig<RelayConfig>();
  const pool = new Pool({ connectionString: c.appUrl, max: 4 });
  pool.on('error', () => undefined);
  const store = postgresOutboxStore({ executor: pgPoolExecutor(pool), schema: c.outboxSchema });
  const jobs = openChaosDriver(c.target, { poolSize: 4 });
  const relay = outboxRelay({
    store: killingStore(store, c),
    driver: killingDriver(jobs.driver, c),
    claimant: c.claimant,
    claimLeaseMs: c.claimLeaseMs,
    intervalMs: 5,
    idlePollMaxMs: 20,
    batch: 20,
  });
  relay.start();
  serveChaosChild({
    answer: () => ({ stats: relay.stats() }),
    shutdown: async () => {
      await relay.stop();
      await jobs.close();
      await pool.end();
    },
  });
}

runChaosChild(main);
