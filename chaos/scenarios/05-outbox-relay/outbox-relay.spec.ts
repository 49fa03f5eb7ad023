/**
 * Scenario 5 — the outbox relay crash matrix, with the outbox in the app's PostgreSQL and the jobs on PostgreSQL and
 * on Redis: two relay processes publish one backlog (staged before and while they run, with rolled-back transactions
 * among the committed ones) while each incarnation SIGKILLs itself at a seeded kill point — before a publish, after a
 * publish before the mark, or with the mark in flight — and is started again. A worker finishes the jobs as they land,
 * so a republish after a kill meets a done row, not a live key. Afterwards: every committed row is a job (0 lost), no
 * job lacks a committed outbox row (0 phantom), no row became two jobs (0 duplicate), nothing is left staged or
 * quarantined.
 */
import { job, JobRegistry, jobWorker, t, type JobDriver } from '@ultimat3/jobs';
import { migrate, postgresOutboxStore } from '@ultimat3/jobs-pg';
import { chaosDrivers, chaosDatabaseSpec, createChaosRun } from '../../harness/drivers';
import { recordChaos } from '../../harness/report';
import { announceSeed, chaosRandom, chaosSeed, seedFor } from '../../harness/schedule';
import { sized } from '../../harness/size';
import { sleep, until } from '../../harness/wait';
import { pgClientTx } from '../../../libs/jobs-pg/test/outbox-tx';
import { listAll } from '../../harness/list-all';
import { Backlog, RELAYED_JOB, RELAYED_QUEUE } from './backlog';
import { KILL_POINTS, killPlan, RelayFleet } from './relay-fleet';

const ROWS = sized({ full: 20_000, ci: 1_200 });
const KILLS_PER_POINT = sized({ full: 10, ci: 2 });
const CLAIM_LEASE_MS = 1_000;
const TIMEOUT = sized({ full: 1_800_000, ci: 240_000 });

/** The relayed job: run (and finished) as soon as it lands. */
const relayed = job({
  name: RELAYED_JOB,
  queue: RELAYED_QUEUE,
  input: t.object({ i: t.number.int() }),
  idempotencyKey: ({ i }) => `row:${i}`,
  tenant: 'none',
  run: () => undefined,
});

const db = chaosDatabaseSpec();

describe.each(chaosDrivers)('scenario 5: outbox relay crash matrix, jobs on %s', (driverName) => {
  let fleet: RelayFleet | undefined;
  afterAll(async () => {
    await fleet?.kill();
  });

  it(
    `publishes ${ROWS} staged rows through ${KILL_POINTS.length * KILLS_PER_POINT} relay kills x 2 relays: 0 lost, 0 phantom, 0 duplicate`,
    async () => {
      const run = await createChaosRun(driverName, db);
      const label = `5 outbox relay/${driverName}`;
      const seed = chaosSeed();
      announceSeed(label, seed);
      const random = chaosRandom(seedFor(seed, label));
      const outboxSchema = run.target.schema ?? `outbox_${run.id}`;
      if (run.target.schema === undefined) await migrate(db.executor, { schema: outboxSchema });
      const store = postgresOutboxStore({
        executor: db.executor,
        txExecutor: pgClientTx,
        schema: outboxSchema,
      });
      const backlog = new Backlog(db.pool, store, random);
      const base = {
        target: run.target,
        appUrl: db.url,
        outboxSchema,
        claimLeaseMs: CLAIM_LEASE_MS,
      };
      const relays = new RelayFleet(base, killPlan(random, KILLS_PER_POINT), TIMEOUT);
      fleet = relays;
      const registry = new JobRegistry();
      registry.register(relayed);
      const worker = jobWorker({
        driver: run.driver,
        registry,
        concurrency: 16,
        pollIntervalMs: 20,
        idlePollMaxMs: 50,
      });
      await worker.start();

      // half the backlog before the relays start, half while they run, then a trickle until every kill has fired (an
      // armed relay reaches its kill point only while rows come)
      await backlog.stage(ROWS / 2);
      relays.start();
      await backlog.stage(ROWS / 2);
      const trickleUntil = Date.now() + TIMEOUT / 2;
      while (
        (relays.faultsLeft > 0 || relays.armed > 0) &&
        !relays.failed &&
        Date.now() < trickleUntil
      ) {
        await backlog.stage(10);
        await sleep(50);
      }
      await until(
        async () =>
          relays.failed || ((await store.retained()) === 0 && (await drained(run.driver))),
        {
          what: 'the backlog to drain',
          timeoutMs: TIMEOUT / 3,
          everyMs: 50,
        },
      );
      await relays.finish();
      await worker.stop();

      const invariants = await verdict(run.driver, backlog, store);
      invariants['kill points planned but not reached'] = relays.faultsLeft + relays.armed;
      recordChaos({
        scenario: '5 outbox relay crash matrix',
        driver: driverName,
        volume: `${backlog.committed.size} committed rows (+${backlog.rolledBack.size} rolled back), 2 relay processes, ${relays.incarnations} incarnations`,
        faults: KILL_POINTS.map((p) => `SIGKILL ${p} x${relays.killed[p]}`),
        invariants,
        figures: { seed },
      });
      await run.drop();
      expect(invariants).toEqual(Object.fromEntries(Object.keys(invariants).map((k) => [k, 0])));
      for (const p of KILL_POINTS) expect(relays.killed[p]).toBe(KILLS_PER_POINT);
    },
    TIMEOUT,
  );
});

/** The invariants, from the jobs the driver holds and the outbox's state. */
async function verdict(
  driver: JobDriver,
  backlog: Backlog,
  store: ReturnType<typeof postgresOutboxStore>,
): Promise<Record<string, number>> {
  const jobs = await listAll(driver, { name: RELAYED_JOB });
  const perKey = new Map<string, number>();
  for (const j of jobs) perKey.set(j.idempotencyKey, (perKey.get(j.idempotencyKey) ?? 0) + 1);
  const ids = new Set(jobs.map((j) => j.id));
  return {
    'committed rows without a job (lost)': [...backlog.committed].filter((id) => !ids.has(id))
      .length,
    'jobs without a committed outbox row (phantom)': jobs.filter(
      (j) => !backlog.committed.has(j.id),
    ).length,
    'rows published as more than one job (duplicate)': [...perKey.values()].filter((n) => n > 1)
      .length,
    'rows left staged': await store.retained(),
    'rows quarantined': (await store.quarantined()).length,
    'jobs not finished done': jobs.filter((j) => j.state !== 'done').length,
  };
}

/** Whether the relayed queue holds no live row (every published job finished). */
async function drained(driver: JobDriver): Promise<boolean> {
  const q = (await driver.stats()).find((s) => s.queue === RELAYED_QUEUE);
  return q === undefined || q.ready + q.delayed + q.running + q.suspended === 0;
}
