/**
 * Scenario 6 — idempotency races, on PostgreSQL and Redis, from several processes at once:
 * 1. 64 concurrent identical enqueues (4 processes x 16 connections, fired at one wall-clock instant): one row,
 *    one `created`, every other caller that row's ids (or `X_JOB_DUPLICATE` under `onConflict: 'error'`).
 * 2. An enqueue racing the rollback of its transaction (the outbox in the app's PostgreSQL, two relays publishing
 *    meanwhile): a job exists exactly for each committed order — none for a rolled back, terminated or abandoned one.
 * 3. A dedupe racing the completion of the live row: the documented answer (see `race-verdicts.ts`).
 */
import { outboxRelay, type JobDriver, type JobRow } from '@ultimat3/jobs';
import { migrate, pgPoolExecutor, postgresOutboxStore } from '@ultimat3/jobs-pg';
import type { PoolClient } from 'pg';
import {
  chaosDrivers,
  chaosDatabaseSpec,
  createChaosRun,
  type ChaosRun,
} from '../../harness/drivers';
import { recordChaos } from '../../harness/report';
import { sized } from '../../harness/size';
import { RACE_JOB, type BurstAnswer, type CompletionRound } from './race-rounds';
import {
  burstCounts,
  burstViolations,
  completionCounts,
  completionMix,
  completionViolations,
  type Counts,
} from './race-verdicts';
import { listAll } from '../../harness/list-all';
import type { ChaosProcess } from '../../harness/processes';
import { askAll, raceSeed, spawnRacers } from './race-processes';
import type { TxPlan, TxResult } from './tx-racer';

const PROCESSES = 4;
const CALLERS = 64;
const BURSTS = sized({ full: 400, ci: 40 });
const LANES = 4;
const COMPLETIONS = sized({ full: 200, ci: 16 });
const TX_LANES = 8;
const TXS = sized({ full: 150, ci: 10 });
const TIMEOUT = sized({ full: 1_800_000, ci: 120_000 });

const db = chaosDatabaseSpec();
beforeAll(async () => {
  await db.pool.query('create table chaos_orders (id uuid primary key)');
});

describe.each(chaosDrivers)('scenario 6: idempotency races on %s', (driverName) => {
  let run: ChaosRun;
  let racers: readonly ChaosProcess[] = [];
  const seed = raceSeed(`6 idempotency races/${driverName}`);
  beforeAll(async () => {
    run = await createChaosRun(driverName, db);
    // 16 connections each: a burst's 64 callers, and the completion lanes' ackers and enqueuers apart
    racers = await spawnRacers('racer.ts', PROCESSES, {
      target: run.target,
      connections: CALLERS / PROCESSES,
    });
  }, TIMEOUT);
  afterAll(async () => {
    await Promise.all(racers.map((r) => r.shutdown()));
    await run?.drop();
  });

  it(
    `${CALLERS} identical enqueues from ${PROCESSES} processes at once: one row, ${BURSTS} times`,
    async () => {
      const counts = burstCounts();
      for (let round = 0; round < BURSTS; round++) {
        const onConflict = round % 4 === 3 ? 'error' : 'dedupe';
        const command = {
          queue: 'bursts',
          key: `burst:${run.id}:${round}`,
          fireAt: Date.now() + 40,
          callers: CALLERS / PROCESSES,
          onConflict,
        };
        const answers = await askAll<BurstAnswer>(
          racers,
          'burst',
          'answers',
          () => command,
          30_000,
        );
        const rows = await existing(
          run.driver,
          answers.map((a) => a.requested),
        );
        burstViolations(answers, rows, onConflict, counts);
      }
      record(
        '64 identical enqueues',
        `${BURSTS} bursts x ${CALLERS} enqueues (${PROCESSES} processes)`,
        counts,
        {},
      );
      expect(counts).toEqual(zeroes(counts));
    },
    TIMEOUT,
  );

  it(
    `an enqueue racing the completion of the live row answers as documented, ${PROCESSES * LANES * COMPLETIONS} times`,
    async () => {
      const rounds = await askAll<CompletionRound>(
        racers,
        'completion',
        'rounds',
        (i) => ({
          label: `${run.id}-${i}`,
          lanes: LANES,
          lags: seed.lags(COMPLETIONS, 6),
          errorEvery: 4,
        }),
        TIMEOUT,
      );
      const counts = completionCounts();
      for (const round of rounds) {
        const [original, racing] = await Promise.all([
          run.driver.get(round.original),
          run.driver.get(round.requested),
        ]);
        completionViolations(round, original, racing, counts);
      }
      const mix = completionMix(rounds);
      record(
        'dedupe racing completion',
        `${rounds.length} races (${PROCESSES} processes x ${LANES} lanes)`,
        counts,
        mix,
      );
      expect(counts).toEqual(zeroes(counts));
      // the races landed on both sides of the completion (else the scenario proved nothing)
      expect(mix.deduped).toBeGreaterThan(0);
      expect(mix.created).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    `an enqueue racing the rollback of its transaction leaves no job, ${PROCESSES * TX_LANES * TXS} transactions`,
    async () => {
      await db.pool.query('truncate chaos_orders'); // the app's table: this run's orders only
      const outboxSchema = run.target.schema ?? `outbox_${run.id}`;
      if (run.target.schema === undefined) await migrate(db.executor, { schema: outboxSchema });
      const store = postgresOutboxStore({
        executor: db.executor,
        txExecutor: (tx) => pgPoolExecutor(tx as PoolClient),
        schema: outboxSchema,
      });
      const relays = ['relay-a', 'relay-b'].map((claimant) =>
        outboxRelay({ store, driver: run.driver, claimant, intervalMs: 5, idlePollMaxMs: 10 }),
      );
      relays.forEach((r) => r.start());
      const txRacers = await spawnRacers('tx-racer.ts', PROCESSES, {
        target: run.target,
        appUrl: db.url,
        outboxSchema,
      });
      const results = await askAll<TxResult>(
        txRacers,
        'txs',
        'results',
        () => ({ lanes: seed.plans(TX_LANES, TXS) }),
        TIMEOUT,
      ).finally(() => Promise.all(txRacers.map((r) => r.shutdown())));
      const until = Date.now() + 60_000;
      while ((await store.retained()) > 0 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20));
      await Promise.all(relays.map((r) => r.stop()));

      const committed = new Set(
        (await db.pool.query<{ id: string }>('select id from chaos_orders')).rows.map((r) => r.id),
      );
      const jobs = await listAll(run.driver, { name: 'chaos.order' });
      const jobsPerOrder = new Map<string, number>();
      for (const j of jobs) {
        const order = (j.input as { order: string }).order;
        jobsPerOrder.set(order, (jobsPerOrder.get(order) ?? 0) + 1);
      }
      const counts: Counts = {
        'jobs without a committed order (phantom)': [...jobsPerOrder.keys()].filter(
          (o) => !committed.has(o),
        ).length,
        'committed orders without a job (lost)': [...committed].filter((o) => !jobsPerOrder.has(o))
          .length,
        'orders with more than one job': [...jobsPerOrder.values()].filter((n) => n > 1).length,
        'commits the app saw that did not land': results.filter(
          (r) => r.committed && !committed.has(r.order),
        ).length,
        'staged rows left unpublished': await store.retained(),
      };
      const plans = (plan: TxPlan): number => results.filter((r) => r.plan === plan).length;
      record('enqueue racing rollback', `${results.length} outbox transactions, 2 relays`, counts, {
        committed: committed.size,
        rolledBack: plans('rollback'),
        terminated: plans('terminate'),
        abandoned: plans('abandon'),
      });
      expect(counts).toEqual(zeroes(counts));
      expect(committed.size).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  function record(
    race: string,
    volume: string,
    counts: Counts,
    figures: Record<string, number>,
  ): void {
    recordChaos({
      scenario: `6 idempotency races: ${race}`,
      driver: driverName,
      volume,
      faults:
        race === 'enqueue racing rollback'
          ? ['rollback', 'pg_terminate_backend', 'connection destroyed']
          : [],
      invariants: counts,
      figures: { ...figures, seed: seed.value },
    });
  }
});

/** The rows of `ids` the backend holds. */
async function existing(driver: JobDriver, ids: readonly string[]): Promise<JobRow[]> {
  const rows = await Promise.all(ids.map((id) => driver.get(id)));
  return rows.filter((r): r is JobRow => r !== undefined && r.name === RACE_JOB);
}

/** `counts` with every value 0: what `toEqual` compares against, so a red run names the invariant. */
function zeroes(counts: Counts): Counts {
  return Object.fromEntries(Object.keys(counts).map((k) => [k, 0]));
}
