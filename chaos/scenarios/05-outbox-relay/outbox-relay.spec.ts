/**
 * Scenario 5 — the outbox relay crash matrix, with the outbox in the app's PostgreSQL and the jobs on PostgreSQL and
 * on Redis: two relay processes publish one backlog (staged before and while they run, with rolled-back transactions
 * among the committed ones) while each incarnation SIGKILLs itself at a seeded kill point — before a publish, after a
 * publish before the mark, or with the mark in flight — and is started again. Afterwards: every committed row is a
 * job (0 lost), no job lacks a committed outbox row (0 phantom), no row became two jobs (0 duplicate), nothing is left
 * staged or quarantined.
 */
import { join } from 'node:path';
import {
  job,
  JobRegistry,
  jobWorker,
  t,
  uuidv7,
  type EnqueueRequest,
  type JobDriver,
} from '@ultimat3/jobs';
import { migrate, postgresOutboxStore } from '@ultimat3/jobs-pg';
import { chaosDrivers, createChaosDatabase, createChaosRun } from '../../harness/drivers';
import { ChaosProcess } from '../../harness/processes';
import { recordChaos } from '../../harness/report';
import { announceSeed, chaosRandom, chaosSeed, seedFor } from '../../harness/schedule';
import { sized } from '../../harness/size';
import { until } from '../../harness/wait';
import { pgClientTx, stageInTx } from '../../../libs/jobs-pg/test/outbox-tx';
import type { TestDatabase } from '../../../libs/jobs-pg/test/test-database';
import { listAll } from '../06-idempotency-races/race-processes';
import type { KillPoint, RelayConfig } from './relay';

const ROWS = sized({ full: 20_000, ci: 1_200 });
const KILLS_PER_POINT = sized({ full: 10, ci: 2 });
const CLAIM_LEASE_MS = 1_000;
const NAME = 'chaos.relayed';
const TIMEOUT = sized({ full: 1_800_000, ci: 240_000 });
const POINTS: readonly KillPoint[] = ['before-publish', 'after-publish', 'during-mark'];

/** The relayed job: run (and finished) as soon as it lands, so a republish after a crash meets a FINISHED row. */
const relayed = job({
  name: NAME,
  queue: 'relayed',
  input: t.object({ i: t.number.int() }),
  idempotencyKey: ({ i }) => `row:${i}`,
  tenant: 'none',
  run: () => undefined,
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createChaosDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const request = (i: number): EnqueueRequest => ({
  ...{ id: uuidv7(), runId: uuidv7(), name: NAME, queue: 'relayed', input: { i } },
  ...{
    idempotencyKey: `row:${i}`,
    tenantId: null,
    enqueuedBy: null,
    runAt: Date.now(),
    maxAttempts: 1,
  },
  ...{ priority: 0, onConflict: 'dedupe' as const, concurrencyKey: null, traceparent: null },
});

describe.each(chaosDrivers)('scenario 5: outbox relay crash matrix, jobs on %s', (driverName) => {
  const live = new Set<ChaosProcess>();
  afterAll(async () => {
    await Promise.all([...live].map((p) => p.kill('SIGKILL')));
  });

  it(
    `publishes ${ROWS} staged rows through ${POINTS.length * KILLS_PER_POINT} relay kills x 2 relays: 0 lost, 0 phantom, 0 duplicate`,
    async () => {
      const run = await createChaosRun(driverName, db);
      const seed = chaosSeed();
      announceSeed(`5 outbox relay/${driverName}`, seed);
      const random = chaosRandom(seedFor(seed, `5 outbox relay/${driverName}`));
      const outboxSchema = run.target.schema ?? `outbox_${run.id}`;
      if (run.target.schema === undefined) await migrate(db.executor, { schema: outboxSchema });
      const store = postgresOutboxStore({
        executor: db.executor,
        txExecutor: pgClientTx,
        schema: outboxSchema,
      });

      const faults = POINTS.flatMap((kill) => Array.from({ length: KILLS_PER_POINT }, () => kill))
        .map((kill) => ({ kill, order: random.next() }))
        .sort((a, b) => a.order - b.order)
        .map(({ kill }) => ({ kill, killAt: 1 + random.int(30), markJitterMs: random.int(4) }));
      const killed: Record<string, number> = Object.fromEntries(POINTS.map((p) => [p, 0]));
      let incarnations = 0;
      let finished = false;
      let armed = 0; // relays alive with a kill point not yet reached

      const relaySlot = async (slot: string): Promise<void> => {
        while (!finished) {
          const fault = faults.shift() ?? { kill: 'none' as const, killAt: 0, markJitterMs: 0 };
          const config: RelayConfig = {
            ...{
              target: run.target,
              appUrl: db.url,
              outboxSchema,
              claimant: `${slot}-${++incarnations}`,
            },
            ...{ ...fault, claimLeaseMs: CLAIM_LEASE_MS },
          };
          const relay = new ChaosProcess({
            entry: join(__dirname, 'relay.ts'),
            args: [JSON.stringify(config)],
            label: config.claimant,
          });
          await relay.start();
          live.add(relay);
          if (fault.kill !== 'none') armed++;
          const code = await Promise.race([
            relay.exited,
            until(() => finished, { what: 'the run to end', timeoutMs: TIMEOUT, everyMs: 50 }).then(
              () => 'done' as const,
            ),
          ]);
          if (code === 'done') return;
          live.delete(relay);
          armed--;
          if (fault.kill === 'none')
            throw new Error(`relay ${config.claimant} died unarmed:\n${relay.tail()}`);
          killed[fault.kill] = (killed[fault.kill] ?? 0) + 1;
        }
      };

      // half the backlog staged before the relays start, half while they run; every 5th transaction rolls back
      const committed = new Set<string>();
      const rolledBack = new Set<string>();
      let next = 0;
      const stage = async (rows: number): Promise<void> => {
        const end = next + rows;
        const lanes = Array.from({ length: 4 }, async () => {
          while (next < end) {
            const size = Math.min(1 + random.int(3), end - next);
            const batch = Array.from({ length: size }, () => request(next++));
            if (random.int(5) === 0) {
              await stageInTx(
                db.pool,
                {
                  stage: (r, tx) =>
                    store.stage(r, tx).then(() => {
                      throw new RolledBack();
                    }),
                },
                batch.slice(0, 1),
              ).catch((e: unknown) => {
                if (!(e instanceof RolledBack)) throw e;
              });
              rolledBack.add(batch[0]!.id);
              continue;
            }
            await stageInTx(db.pool, store, batch);
            for (const r of batch) committed.add(r.id);
          }
        });
        await Promise.all(lanes);
      };
      // a worker finishes the jobs as they land: a republish then meets a done row, not a live key
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
      await stage(ROWS / 2);
      const slots = Promise.all([relaySlot('relay-a'), relaySlot('relay-b')]);
      let slotFailed = false;
      slots.catch(() => {
        slotFailed = true;
      });
      await stage(ROWS / 2);
      // a trickle until every planned kill has fired: an armed relay reaches its kill point only while rows come
      const trickleUntil = Date.now() + TIMEOUT / 2;
      while ((faults.length > 0 || armed > 0) && !slotFailed && Date.now() < trickleUntil) {
        await stage(10);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await Promise.race([
        slots,
        until(
          async () =>
            faults.length === 0 && (await store.retained()) === 0 && (await drained(run.driver)),
          {
            what: 'every kill fired and the backlog drained',
            timeoutMs: TIMEOUT - 30_000,
            everyMs: 50,
          },
        ),
      ]);
      finished = true;
      await slots;
      await Promise.all([...live].map((p) => p.shutdown()));
      live.clear();
      await worker.stop();

      const jobs = await listAll(run.driver, { name: NAME });
      const perKey = new Map<string, number>();
      for (const j of jobs) perKey.set(j.idempotencyKey, (perKey.get(j.idempotencyKey) ?? 0) + 1);
      const ids = new Set(jobs.map((j) => j.id));
      const invariants = {
        'committed rows without a job (lost)': [...committed].filter((id) => !ids.has(id)).length,
        'jobs without a committed outbox row (phantom)': jobs.filter((j) => !committed.has(j.id))
          .length,
        'rows published as more than one job (duplicate)': [...perKey.values()].filter((n) => n > 1)
          .length,
        'rows left staged': await store.retained(),
        'rows quarantined': (await store.quarantined()).length,
        'jobs not finished done': jobs.filter((j) => j.state !== 'done').length,
        'kill points planned but not reached': faults.length,
      };
      recordChaos({
        scenario: '5 outbox relay crash matrix',
        driver: driverName,
        volume: `${committed.size} committed rows (+${rolledBack.size} rolled back), 2 relay processes, ${incarnations} incarnations`,
        faults: POINTS.map((p) => `SIGKILL ${p} x${killed[p]}`),
        invariants,
        figures: { seed },
      });
      await run.drop();
      expect(invariants).toEqual(Object.fromEntries(Object.keys(invariants).map((k) => [k, 0])));
      for (const p of POINTS) expect(killed[p]).toBe(KILLS_PER_POINT);
    },
    TIMEOUT,
  );
});

/** A staged transaction the spec rolls back on purpose. */
class RolledBack extends Error {}

/** Whether the relayed queue holds no live row (every published job finished). */
async function drained(driver: JobDriver): Promise<boolean> {
  const q = (await driver.stats()).find((s) => s.queue === 'relayed');
  return q === undefined || q.ready + q.delayed + q.running + q.suspended === 0;
}
