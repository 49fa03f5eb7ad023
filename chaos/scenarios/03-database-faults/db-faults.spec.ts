/**
 * Chaos scenario 3: the database under a running fleet. Worker processes run jobs of three durable steps against a
 * server of the scenario's own, reached through a fault-injecting TCP proxy, while a steady enqueuer adds jobs; the
 * server is restarted mid-run (same port and data), put in a read-only window (PostgreSQL), and the network to it is
 * stalled past the lease and then cut, then healed. After the last fault every acknowledged job must be done within a
 * bound, no worker may have exited, nothing acknowledged lost, no step body re-run after its step was stored — re-runs
 * of bodies whose lease lapsed or whose store failed during a fault are the documented at-least-once window, counted.
 */
import type { JobDriver } from '@ultimat3/jobs';
import { openChaosDriver, type ChaosDriverName } from '../../harness/drivers';
import { resumeFigures, type FaultedFleet } from '../../harness/faulted-fleet';
import { recordChaos } from '../../harness/report';
import { announceSeed, chaosRandom, chaosSeed, seedFor } from '../../harness/schedule';
import { injectDbFaults, type FaultLog } from './fault-sequence';
import { sized } from '../../harness/size';
import { truthSpec } from '../../harness/truth-spec';
import { FAULT_STEPS } from './db-faults-job';
import { startDbFaultsFleet } from './db-faults-fleet';
import { startFaultedPostgres, startFaultedRedis, type FaultedServer } from './faulted-server';

const SCENARIO = '3 database faults';
const WORKERS = sized({ full: 3, ci: 2 });
const JOBS = sized({ full: 3_000, ci: 200 });
/** Rounds of the whole fault sequence. */
const ROUNDS = sized({ full: 3, ci: 1 });
const CONCURRENCY = 4;
/** A short lease, so a stall outlasts it: the lapsed runs are the at-least-once window this scenario counts. */
const LEASE_MS = 2_000;
/** Every acknowledged job done within this long after the faults and the enqueues ended. */
const RECOVERY_BOUND_MS = sized({ full: 60_000, ci: 25_000 });

const seed = chaosSeed();

describe(`chaos ${SCENARIO}`, () => {
  const truth = truthSpec();

  /** Starts the fleet of `run` on `server`: its workers through the proxy, the enqueuer straight to the server. */
  function startFleet(server: FaultedServer, run: string, spec: JobDriver): Promise<FaultedFleet> {
    return startDbFaultsFleet({
      target: server.target,
      truth: truth.db,
      run,
      driver: spec,
      workers: WORKERS,
      concurrency: CONCURRENCY,
      leaseMs: LEASE_MS,
      jobs: JOBS,
      intervalMs: 200,
      idlePollMaxMs: 500,
    });
  }

  /** Waits for the fleet to come through, reports, and asserts every invariant zero. */
  async function judge(
    driver: ChaosDriverName,
    run: string,
    fleet: FaultedFleet,
    log: FaultLog,
    cutSockets: number,
  ): Promise<void> {
    const settled = await fleet.settle(RECOVERY_BOUND_MS);
    const verdict = await fleet.finish(run, FAULT_STEPS);
    const invariants = {
      [`jobs not done ${RECOVERY_BOUND_MS / 1_000} s after the faults and the enqueues ended`]:
        settled.pending,
      ...verdict.invariants,
    };
    recordChaos({
      scenario: SCENARIO,
      driver,
      volume: `${fleet.stream.acknowledged.length} jobs x ${FAULT_STEPS.length} steps, ${WORKERS} worker processes x ${CONCURRENCY}, lease ${LEASE_MS} ms`,
      faults: log.faults,
      invariants,
      figures: {
        ...verdict.figures,
        ...(await resumeFigures(truth.db.pool, run, log.ended)),
        'ms from the end of the faults and the enqueues to every job done': settled.ms,
        'sockets cut': cutSockets,
        seed,
      },
    });
    for (const [name, count] of Object.entries(invariants))
      expect([name, count]).toEqual([name, 0]);
    expect(fleet.stream.acknowledged.length).toBe(JOBS);
  }

  it.each<ChaosDriverName>(['pg', 'redis'])(
    'on %s: workers resume by themselves, nothing acknowledged lost, no step re-run after it was stored',
    async (driver) => {
      const label = `${SCENARIO}/${driver}`;
      announceSeed(label, seed);
      const random = chaosRandom(seedFor(seed, label));
      const run = `${driver}_03_${seedFor(seed, `${label}${Date.now()}`).toString(16)}`;
      const server: FaultedServer =
        driver === 'pg'
          ? await startFaultedPostgres(`chaos_${run}`)
          : await startFaultedRedis(`chaos-${run}`);
      const spec = openChaosDriver(server.direct, { poolSize: 4 });
      let fleet: FaultedFleet | undefined;
      try {
        fleet = await startFleet(server, run, spec.driver);
        const log: FaultLog = { faults: [], ended: [] };
        for (let round = 0; round < ROUNDS; round++)
          await injectDbFaults(server, random, LEASE_MS, log);
        await judge(driver, run, fleet, log, server.proxy.stats.cutSockets);
      } finally {
        await fleet?.kill();
        await spec.close();
        await server.close();
      }
    },
    sized({ full: 600_000, ci: 90_000 }),
  );
});
