/**
 * Chaos scenario 9: PostgreSQL's hand-off under SIGKILL. Three worker processes with the wake and the hand-off on
 * (registered while idle), fed by single `enqueue()` calls from four concurrent loops — each job due now is inserted
 * claimed for an idle registered worker and delivered to it on its own channel — while workers are SIGKILLed at
 * random shares of the jobs enqueued, and restarted. Rows handed to a worker that died before settling them are
 * rescued when their leases lapse, and a dead worker's registration is passed by. Scenario 1's job (three durable
 * steps) and its ground truth, the handed rows recorded as the claims they are: 0 jobs lost, 0 completed twice, 0
 * step bodies re-run after their step was stored, 0 stale writes accepted. PostgreSQL only: the Redis hand-off has its
 * own SIGKILL spec (`libs/jobs-redis/src/redis-faults.spec.ts`).
 */
import { join } from 'node:path';
import type { ChaosProcess } from '../../harness/processes';
import { recordChaos } from '../../harness/report';
import {
  announceSeed,
  chaosRandom,
  chaosSeed,
  faultSchedule,
  seedFor,
} from '../../harness/schedule';
import { sized } from '../../harness/size';
import { killsVerdict } from '../../harness/kills-verdict';
import { liveRows, sleep, until } from '../../harness/wait';
import { fleetSpec } from '../../harness/truth-spec';
import type { ChaosWorkerConfig } from '../../harness/worker-child';
import { JOB, killsRequest, STEPS } from '../01-worker-kills/jobs';

const SCENARIO = '9 hand-off kills';
const JOBS = sized({ full: 20_000, ci: 2_000 });
const KILLS = sized({ full: 10, ci: 3 });
const WORKERS = 3;
const PRODUCERS = 4;
const VT = 3_000;
const seed = chaosSeed();

describe('chaos 9: the PostgreSQL hand-off through worker SIGKILLs (pg)', () => {
  const spec = fleetSpec();
  const { fleet } = spec;

  it(
    `${JOBS} single enqueues handed to idle workers through ${KILLS} SIGKILLs: none lost, none completed twice, no step re-run, no stale write accepted`,
    async () => {
      const started = Date.now();
      const { db } = spec;
      const run = await spec.createRun('pg');
      const { id } = run;
      const random = chaosRandom(seedFor(seed, SCENARIO));
      const pauses = chaosRandom(seedFor(seed, `${SCENARIO}/pauses`));
      announceSeed(SCENARIO, seed);
      const workers: ChaosProcess[] = Array.from({ length: WORKERS }, (_, i) => {
        const config: ChaosWorkerConfig = {
          target: run.target,
          truthUrl: db.url,
          run: id,
          name: `w${i}`,
          concurrency: 8,
          visibilityTimeoutMs: VT,
          heartbeatIntervalMs: 1_000,
          wake: true,
        };
        return fleet.add({
          entry: join(__dirname, 'worker.ts'),
          args: [JSON.stringify(config)],
          label: `w${i}`,
        });
      });
      await fleet.startAll();

      // the kills, each at a random share of the jobs enqueued, on a random worker, which is then restarted
      const schedule = faultSchedule({
        random,
        count: KILLS,
        from: 0.05,
        to: 0.9,
        targets: workers,
      });
      // four producers, one enqueue() at a time each, a short random pause between: a steady stream of jobs due now
      let next = 0;
      const ids: string[] = [];
      const produce = async (): Promise<void> => {
        for (let n = next++; n < JOBS; n = next++) {
          const request = killsRequest(n);
          await run.driver.enqueue(request);
          ids.push(request.id);
          await sleep(pauses.int(30));
        }
      };
      const producing = Promise.all(Array.from({ length: PRODUCERS }, () => produce()));

      const restarts = new Map<ChaosProcess, Promise<unknown>>();
      const kills: string[] = [];
      for (const fault of schedule) {
        await until(async () => ids.length >= fault.at * JOBS, {
          what: `${Math.round(fault.at * 100)} % of the jobs enqueued`,
          timeoutMs: sized({ full: 600_000, ci: 60_000 }),
          everyMs: 5,
        });
        kills.push(`${fault.target.label}@${ids.length}`);
        await restarts.get(fault.target);
        await fault.target.kill('SIGKILL');
        restarts.set(fault.target, fault.target.start());
      }
      await producing;
      await Promise.all(restarts.values());
      await until(async () => liveRows(await run.driver.stats()) === 0, {
        what: 'every job settled',
        timeoutMs: sized({ full: 900_000, ci: 120_000 }),
        everyMs: 250,
      });
      await fleet.shutdownAll();
      const { invariants, figures, doneCounted } = await killsVerdict({
        pool: db.pool,
        run,
        ids,
        job: JOB,
        steps: STEPS,
      });
      const { rows: handedRows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from chaos_truth where run = $1 and kind = 'claim' and step = 'hand-off'`,
        [id],
      );
      const handed = handedRows[0]?.n ?? 0;
      recordChaos({
        scenario: SCENARIO,
        driver: 'pg',
        volume: `${JOBS.toLocaleString('en')} single enqueues x ${STEPS.length} steps, ${PRODUCERS} producers, ${WORKERS} worker processes`,
        faults: [`SIGKILL x${KILLS} (each worker restarted)`, `CHAOS_SEED=${seed}`],
        invariants,
        figures: {
          runsHandedToIdleWorkers: handed,
          staleWritesRefused: figures.staleWritesRefused,
          claims: figures.claims,
          stepBodies: figures.bodies,
          doneCounted,
          killedAtJobsEnqueued: kills.join(' '),
          seconds: Math.round((Date.now() - started) / 1_000),
        },
      });
      expect(invariants).toEqual({
        lost: 0,
        completedTwice: 0,
        stepBodiesRerunAfterStored: 0,
        staleWritesAccepted: 0,
      });
      // the scenario really injected its faults and really handed rows over
      expect(workers.reduce((n, w) => n + w.starts, 0)).toBe(WORKERS + KILLS);
      expect(handed).toBeGreaterThan(0);
      expect(doneCounted).toBe(JOBS);
    },
    sized({ full: 1_800_000, ci: 240_000 }),
  );
});
