/**
 * Chaos scenario 1: jobs with three durable steps drained by three worker processes, SIGKILLed at random moments (a
 * seeded schedule over the share of jobs done) and restarted. Proves, from the ground truth and the driver's final
 * state: 0 jobs lost, 0 completed twice, 0 step bodies re-run after their step was stored, 0 stale writes accepted —
 * and counts the stale writes the drivers refused.
 */
import { join } from 'node:path';
import { chaosDrivers } from '../../harness/drivers';
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
import { JOB, killsRequest, STEPS } from './jobs';

const SCENARIO = '1 worker kills';
const JOBS = sized({ full: 100_000, ci: 10_000 });
const KILLS = sized({ full: 20, ci: 5 });
const WORKERS = 3;
const VT = 3_000;
const seed = chaosSeed();

describe.each(chaosDrivers)('chaos 1: worker processes SIGKILLed mid-run (%s)', (driver) => {
  const spec = fleetSpec();
  const { fleet } = spec;

  it(
    `${JOBS} jobs x ${STEPS.length} steps through ${KILLS} SIGKILLs: none lost, none completed twice, no step re-run, no stale write accepted`,
    async () => {
      const started = Date.now();
      const { db } = spec;
      const run = await spec.createRun(driver);
      const { id } = run;
      const random = chaosRandom(seedFor(seed, `${SCENARIO}/${driver}`));
      announceSeed(`${SCENARIO} (${driver})`, seed);
      const workers: ChaosProcess[] = Array.from({ length: WORKERS }, (_, i) => {
        const config: ChaosWorkerConfig = {
          target: run.target,
          truthUrl: db.url,
          run: id,
          name: `w${i}`,
          concurrency: 32,
          visibilityTimeoutMs: VT,
          heartbeatIntervalMs: 1_000,
          pollIntervalMs: 50,
          idlePollMaxMs: 200,
        };
        return fleet.add({
          entry: join(__dirname, 'worker.ts'),
          args: [JSON.stringify(config)],
          label: `w${i}`,
        });
      });
      await fleet.startAll();

      const ids: string[] = [];
      for (let n = 0; n < JOBS; n += 1_000) {
        const batch = Array.from({ length: Math.min(1_000, JOBS - n) }, (_, i) =>
          killsRequest(n + i),
        );
        await run.driver.enqueueMany(batch);
        ids.push(...batch.map((r) => r.id));
      }

      // the kills, each at a random share of the jobs done, on a random worker, which is then restarted
      const acked = async (): Promise<number> => {
        const { rows } = await db.pool.query<{ n: number }>(
          `select count(*)::int as n from chaos_truth where run = $1 and kind = 'ack' and accepted`,
          [id],
        );
        return rows[0]?.n ?? 0;
      };
      const schedule = faultSchedule({
        random,
        count: KILLS,
        from: 0.02,
        to: 0.85,
        targets: workers,
      });
      const restarts = new Map<ChaosProcess, Promise<unknown>>();
      const kills: string[] = [];
      for (const fault of schedule) {
        await until(async () => (await acked()) >= fault.at * JOBS, {
          what: `${Math.round(fault.at * 100)} % of the jobs done`,
          timeoutMs: sized({ full: 1_200_000, ci: 120_000 }),
          everyMs: 100,
        });
        kills.push(`${fault.target.label}@${await acked()}`);
        await sleep(random.int(50));
        await restarts.get(fault.target);
        await fault.target.kill('SIGKILL');
        restarts.set(fault.target, fault.target.start());
      }
      await Promise.all(restarts.values());
      await until(async () => liveRows(await run.driver.stats()) === 0, {
        what: 'every job settled',
        timeoutMs: sized({ full: 1_800_000, ci: 180_000 }),
        everyMs: 250,
      });
      const stats = await Promise.all(workers.map((w) => w.request('stats')));
      await fleet.shutdownAll();
      const { invariants, figures, doneCounted } = await killsVerdict({
        pool: db.pool,
        run,
        ids,
        job: JOB,
        steps: STEPS,
      });
      const leasesLost = stats.reduce(
        (n, s) => n + ((s.stats as { leasesLost: number } | undefined)?.leasesLost ?? 0),
        0,
      );
      recordChaos({
        scenario: SCENARIO,
        driver,
        volume: `${JOBS.toLocaleString('en')} jobs x ${STEPS.length} steps, ${WORKERS} worker processes`,
        faults: [`SIGKILL x${KILLS} (each worker restarted)`, `CHAOS_SEED=${seed}`],
        invariants,
        figures: {
          staleWritesRefused: figures.staleWritesRefused,
          claims: figures.claims,
          stepBodies: figures.bodies,
          doneCounted,
          leasesLostSeen: leasesLost,
          killedAtJobsDone: kills.join(' '),
          seconds: Math.round((Date.now() - started) / 1_000),
        },
      });
      expect(invariants).toEqual({
        lost: 0,
        completedTwice: 0,
        stepBodiesRerunAfterStored: 0,
        staleWritesAccepted: 0,
      });
      // the scenario really injected its faults: the killed workers' runs were taken over
      expect(workers.reduce((n, w) => n + w.starts, 0)).toBe(WORKERS + KILLS);
      expect(figures.claims).toBeGreaterThan(JOBS);
      expect(doneCounted).toBe(JOBS);
    },
    sized({ full: 3_600_000, ci: 300_000 }),
  );
});
