/**
 * One app process of scenario 6's rollback race, run from source a chaos child process (config `{ target, appUrl,
 * outboxSchema }`). It enqueues through the transactional outbox, as an app does: each
 * transaction inserts an order into `chaos_orders` and enqueues `chaos.order` for it with `{ tx }`, then ends as its
 * plan says — while the spec's relays publish whatever committed:
 *
 * - `commit`: commits (the order and its job must both exist);
 * - `rollback`: the app changes its mind right after the enqueue and rolls back;
 * - `terminate`: the server kills the transaction's backend while the enqueue's stage is in flight;
 * - `abandon`: the app's connection is destroyed mid-transaction, right after the enqueue.
 *
 * Answers `{ type: 'txs', results }`: per transaction its order, its plan and what the app saw.
 */
import { Pool, type PoolClient } from 'pg';
import { randomUUID } from 'node:crypto';
import { job, outboxJobsFacade, setJobsFacade, t } from '@ultimat3/jobs';
import { pgPoolExecutor, postgresOutboxStore } from '@ultimat3/jobs-pg';
import { chaosChildConfig, runChaosChild, serveChaosChild } from '../../harness/child';
import { openChaosDriver, type ChaosTarget } from '../../harness/drivers';
import { codeOf } from './race-rounds';

/** How one transaction of the race ends. */
export type TxPlan = 'commit' | 'rollback' | 'terminate' | 'abandon';

/** What the app saw of one transaction. */
export interface TxResult {
  readonly order: string;
  readonly plan: TxPlan;
  /** The job id the enqueue answered, when it answered. */
  readonly jobId?: string;
  /** The commit returned. */
  readonly committed: boolean;
  /** The error the app saw, if any (expected for `terminate` and `abandon`). */
  readonly error?: string;
}

/** The job every transaction enqueues. */
export const orderJob = job({
  name: 'chaos.order',
  queue: 'orders',
  input: t.object({ order: t.string }),
  idempotencyKey: ({ order }) => `order:${order}`,
  tenant: 'none',
  run: () => undefined,
});

interface TxRacerConfig {
  readonly target: ChaosTarget;
  /** The app's database: `chaos_orders` and the outbox live there. */
  readonly appUrl: string;
  readonly outboxSchema: string;
}

async function runTx(pool: Pool, killer: Pool, plan: TxPlan): Promise<TxResult> {
  const order = randomUUID();
  const client: PoolClient = await pool.connect();
  let jobId: string | undefined;
  let broken: Error | undefined;
  try {
    await client.query('begin');
    await client.query('insert into chaos_orders (id) values ($1)', [order]);
    const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]
      ?.pid;
    const enqueue = orderJob.enqueue({ order }, { tx: client });
    if (plan === 'terminate') {
      // the kill lands while the stage is in flight; the stage then fails, and the app sees that below
      await Promise.allSettled([enqueue, killer.query('select pg_terminate_backend($1)', [pid])]);
    }
    jobId = (await enqueue).id;
    if (plan === 'abandon') {
      broken = new Error('abandoned mid-transaction');
      return { order, plan, jobId, committed: false, error: broken.message };
    }
    if (plan === 'rollback') {
      await client.query('rollback');
      return { order, plan, jobId, committed: false };
    }
    await client.query(plan === 'commit' ? 'commit' : 'rollback');
    return { order, plan, jobId, committed: plan === 'commit' };
  } catch (error) {
    broken = error as Error;
    return { order, plan, ...(jobId ? { jobId } : {}), committed: false, error: codeOf(error) };
  } finally {
    // a broken connection is destroyed, not handed back (the server rolls back what it held)
    client.release(broken);
  }
}

async function main(): Promise<void> {
  const { target, appUrl, outboxSchema } = chaosChildConfig<TxRacerConfig>();
  const pool = new Pool({ connectionString: appUrl, max: 12 });
  pool.on('error', () => undefined);
  // a terminated backend errors its client even while checked out: the app sees it on its next query
  pool.on('connect', (client) => client.on('error', () => undefined));
  const killer = new Pool({ connectionString: appUrl, max: 2 });
  killer.on('error', () => undefined);
  const jobs = openChaosDriver(target, { poolSize: 2 });
  const store = postgresOutboxStore({
    executor: pgPoolExecutor(pool),
    txExecutor: (tx) => pgPoolExecutor(tx as PoolClient),
    schema: outboxSchema,
  });
  setJobsFacade(outboxJobsFacade({ store, driver: jobs.driver, mode: 'required' }));
  serveChaosChild({
    answer: async (_type, message) => {
      const lanes = await Promise.all(
        (message.lanes as readonly (readonly TxPlan[])[]).map(async (plans) => {
          const results: TxResult[] = [];
          for (const plan of plans) results.push(await runTx(pool, killer, plan));
          return results;
        }),
      );
      return { results: lanes.flat() };
    },
    shutdown: async () => {
      await Promise.all([pool.end(), killer.end(), jobs.close()]);
    },
  });
}

runChaosChild(main);
