/**
 * Chaos scenario 8 (Redis only): the server under a running fleet — a `redis-server` with the append-only file
 * (`appendfsync everysec`) restarted mid-run, once by SIGTERM (it fsyncs the file before exiting) and once by SIGKILL,
 * and a Redis Cluster whose deployment master fails over (a coordinated `CLUSTER FAILOVER`, then the new master
 * SIGKILLed and replaced by election). Workers (scenario 3's, with the Redis wake on) must resume by themselves, lose
 * nothing acknowledged outside the documented window, complete nothing twice outside it, and idle workers must still
 * be woken by an enqueue afterwards.
 *
 * What `everysec` means for an acknowledged enqueue: Redis appends each write to the file (write(2), into the kernel's
 * page cache) before it replies, and fsyncs once a second. A SIGKILLed `redis-server` therefore loses nothing it
 * acknowledged — the kernel still writes the pages; only a crash of the machine (or a disk so slow that Redis postpones
 * the write, up to 2 s, as on a busy CI machine) loses the last ~1–2 s. Acknowledged enqueues missing after the SIGKILL
 * are counted apart when acknowledged within 2 s before it (the window) and as violations when older. An ack is a
 * write like any other: one answered inside the window and lost with the server leaves its job running under a claim
 * that lapses, and the job runs again (at-least-once). Jobs completed twice are counted apart the same way, by when
 * their first ack was sent. A Cluster master SIGKILLed loses what it acknowledged and had not yet replicated: the same
 * window is applied there.
 */
import type { Pool } from 'pg';
import { startThrowawayRedis, type ThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';
import { openChaosDriver, type ChaosTarget } from '../../harness/drivers';
import type { Acknowledged } from '../../harness/enqueue-stream';
import { resumeFigures, type FaultEnd, type FaultedFleet } from '../../harness/faulted-fleet';
import { recordChaos } from '../../harness/report';
import {
  announceSeed,
  chaosRandom,
  chaosSeed,
  seedFor,
  type ChaosRandom,
} from '../../harness/schedule';
import { sized } from '../../harness/size';
import { truthSpec } from '../../harness/truth-spec';
import { FAULT_STEPS } from '../03-database-faults/db-faults-job';
import { startDbFaultsFleet } from '../03-database-faults/db-faults-fleet';
import {
  startFailoverCluster,
  type FailoverCluster,
} from '../../../libs/jobs-redis/test/failover-cluster';
import { probeWake } from './wake-probe';
import type { JobDriver } from '@ultimat3/jobs';

const SCENARIO = '8 redis restart and failover';
const WORKERS = 2;
const JOBS = sized({ full: 3_000, ci: 200 });
const CONCURRENCY = 4;
const LEASE_MS = 2_000;
const RECOVERY_BOUND_MS = sized({ full: 60_000, ci: 25_000 });
/** An acknowledged enqueue this close before a SIGKILL may be lost (see the file's comment). */
const FSYNC_WINDOW_MS = 2_000;
/** Idle workers are woken within this long of an enqueue (their polls have grown to seconds by then). */
const WAKE_BOUND_MS = 1_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const seed = chaosSeed();

/** Acknowledged enqueues with no row now: inside the window before `killedAt`, and older ones. */
async function lostAcknowledged(
  driver: JobDriver,
  acknowledged: readonly Acknowledged[],
  killedAt: readonly number[],
): Promise<{ inWindow: number; outside: number }> {
  let inWindow = 0;
  let outside = 0;
  for (const a of acknowledged) {
    if ((await driver.get(a.id)) !== null) continue;
    if (killedAt.some((k) => a.at <= k && a.at > k - FSYNC_WINDOW_MS)) inWindow++;
    else outside++;
  }
  return { inWindow, outside };
}

/**
 * Jobs completed twice (their ack landed for two claims), split by when the first of those acks was sent: within the
 * window before a SIGKILL (that ack was answered, then lost with the server, and the job ran again: at-least-once, as
 * for an enqueue) or earlier (a violation). Strict at the edge: an ack sent before the window and answered inside it
 * counts as a violation.
 */
async function completedTwice(
  pool: Pool,
  run: string,
  killedAt: readonly number[],
): Promise<{ inWindow: number; outside: number }> {
  const { rows } = await pool.query<{ first: string }>(
    `select min(sent_at)::text as first from chaos_truth where run = $1 and kind = 'ack' and accepted
      group by job_id having count(distinct claim) > 1`,
    [run],
  );
  const inWindow = rows.filter(({ first }) =>
    killedAt.some((k) => Number(first) <= k && Number(first) > k - FSYNC_WINDOW_MS),
  ).length;
  return { inWindow, outside: rows.length - inWindow };
}

/** What a run's faults were: as the report prints them, when each ended, and the instants of its SIGKILLs. */
interface FaultLog {
  readonly faults: string[];
  readonly ended: FaultEnd[];
  readonly killedAt: number[];
}

/** A `redis-server` restarted in place: its current incarnation, and a restart by `signal`. */
class RestartedRedis {
  constructor(public server: ThrowawayRedis) {}

  /** Stops the server by `signal` (SIGTERM: it fsyncs first), waits `downMs`, starts it on its port and dir. */
  async restart(signal: 'SIGTERM' | 'SIGKILL', downMs: number): Promise<number> {
    const { port, dir } = this.server;
    const at = Date.now();
    if (signal === 'SIGTERM') await this.server.stop({ keepDir: true });
    else {
      process.kill(this.server.pid!, 'SIGKILL');
      await sleep(100);
    }
    await sleep(downMs);
    this.server = await startThrowawayRedis({ aof: true, port, dir });
    return at;
  }
}

/** The AOF faults: a SIGTERM restart, then a SIGKILL one, each after a seeded pause. */
async function aofRestarts(redis: RestartedRedis, random: ChaosRandom): Promise<FaultLog> {
  const log: FaultLog = { faults: [], ended: [], killedAt: [] };
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    await sleep(random.between(1_000, 2_000));
    const downMs = Math.round(random.between(300, 800));
    const at = await redis.restart(signal, downMs);
    if (signal === 'SIGKILL') log.killedAt.push(at);
    log.faults.push(`${signal} + restart (down ${downMs} ms)`);
    log.ended.push({ fault: signal, at: Date.now() });
  }
  return log;
}

/** The Cluster faults: a coordinated failover, then the new master SIGKILLed and its replica elected. */
async function clusterFailovers(cluster: FailoverCluster, random: ChaosRandom): Promise<FaultLog> {
  const log: FaultLog = { faults: [], ended: [], killedAt: [] };
  await sleep(random.between(1_000, 2_000));
  let started = Date.now();
  await cluster.failover();
  log.faults.push(`CLUSTER FAILOVER (${Date.now() - started} ms to agreement)`);
  log.ended.push({ fault: 'CLUSTER FAILOVER', at: Date.now() });
  await sleep(random.between(1_000, 2_000));
  started = Date.now();
  log.killedAt.push(started);
  await cluster.killOwner();
  log.faults.push(`master SIGKILLed, replica elected (${Date.now() - started} ms to agreement)`);
  log.ended.push({ fault: 'master SIGKILLed', at: Date.now() });
  return log;
}

describe(`chaos ${SCENARIO}`, () => {
  const truth = truthSpec();

  /** The fleet of `run` on `target`, its workers' Redis wake on and their idle polls long (so a wake shows). */
  function startFleet(target: ChaosTarget, run: string, spec: JobDriver): Promise<FaultedFleet> {
    return startDbFaultsFleet({
      target,
      truth: truth.db,
      run,
      driver: spec,
      workers: WORKERS,
      concurrency: CONCURRENCY,
      leaseMs: LEASE_MS,
      jobs: JOBS,
      intervalMs: sized({ full: 100, ci: 300 }),
      idlePollMaxMs: 30_000,
      wake: true,
    });
  }

  /** Waits for the fleet to come through, probes the wake, reports, and asserts every invariant zero. */
  async function judge(
    label: string,
    run: string,
    fleet: FaultedFleet,
    spec: JobDriver,
    log: FaultLog,
  ): Promise<void> {
    const settled = await fleet.settle(RECOVERY_BOUND_MS);
    const lost = await lostAcknowledged(spec, fleet.stream.acknowledged, log.killedAt);
    const woken = await probeWake({
      driver: spec,
      workers: fleet.processes,
      count: 3,
      idleMs: 4_000,
      boundMs: WAKE_BOUND_MS,
      capMs: 15_000,
    });
    const verdict = await fleet.finish(run, FAULT_STEPS);
    const twice = await completedTwice(truth.db.pool, run, log.killedAt);
    const invariants = {
      [`jobs not done ${RECOVERY_BOUND_MS / 1_000} s after the faults and the enqueues ended`]:
        settled.pending,
      ...verdict.invariants,
      'jobs completed twice': twice.outside,
      'acknowledged jobs lost (no row)': lost.outside,
      [`idle workers' enqueues not picked up within ${WAKE_BOUND_MS} ms (wake)`]: woken.slow,
      'workers whose wake is not live after the faults': woken.notLive,
    };
    recordChaos({
      scenario: SCENARIO,
      driver: 'redis',
      volume: `${label}: ${fleet.stream.acknowledged.length} jobs x ${FAULT_STEPS.length} steps, ${WORKERS} worker processes x ${CONCURRENCY}, lease ${LEASE_MS} ms`,
      faults: log.faults,
      invariants,
      figures: {
        ...verdict.figures,
        [`acknowledged enqueues lost within ${FSYNC_WINDOW_MS} ms before a SIGKILL (everysec / replication window)`]:
          lost.inWindow,
        [`jobs completed twice, the first ack sent within ${FSYNC_WINDOW_MS} ms before a SIGKILL (its write lost with the server)`]:
          twice.inWindow,
        ...(await resumeFigures(truth.db.pool, run, log.ended)),
        'ms from the end of the faults and the enqueues to every job done': settled.ms,
        'wake probe latencies (ms)': woken.latencies.join(' / '),
        seed,
      },
    });
    for (const [name, count] of Object.entries(invariants))
      expect([name, count]).toEqual([name, 0]);
    expect(fleet.stream.acknowledged.length).toBe(JOBS);
  }

  /** Runs the fleet on `target` through `inject`'s faults, then judges it. */
  async function scenario(
    label: string,
    target: ChaosTarget,
    inject: (random: ChaosRandom) => Promise<FaultLog>,
  ): Promise<void> {
    announceSeed(`${SCENARIO}/${label}`, seed);
    const random = chaosRandom(seedFor(seed, `${SCENARIO}/${label}`));
    const spec = openChaosDriver(target);
    let fleet: FaultedFleet | undefined;
    try {
      fleet = await startFleet(target, target.prefix!, spec.driver);
      const log = await inject(random);
      await judge(label, target.prefix!, fleet, spec.driver, log);
    } finally {
      await fleet?.kill();
      await spec.close();
    }
  }

  it(
    'redis-server with AOF everysec restarted mid-run (SIGTERM, then SIGKILL): workers resume, nothing acknowledged lost, idle workers woken',
    async () => {
      const redis = new RestartedRedis(await startThrowawayRedis({ name: 'chaos-aof', aof: true }));
      try {
        const prefix = `chaos-08-aof-${seed.toString(16)}`;
        await scenario(
          'aof everysec restarts',
          { driver: 'redis', url: redis.server.url, prefix },
          (random) => aofRestarts(redis, random),
        );
      } finally {
        await redis.server.stop();
      }
    },
    sized({ full: 600_000, ci: 90_000 }),
  );

  it(
    'Redis Cluster failover of the deployment master (CLUSTER FAILOVER, then the new master SIGKILLed): workers resume, nothing acknowledged lost, no double completion, idle workers woken',
    async () => {
      const prefix = `chaos-08-cluster-${seed.toString(16)}`;
      const cluster = await startFailoverCluster(prefix);
      try {
        const target: ChaosTarget = {
          driver: 'redis',
          url: cluster.seedUrl,
          prefix,
          cluster: true,
        };
        await scenario('cluster failover', target, (random) => clusterFailovers(cluster, random));
      } finally {
        await cluster.stop();
      }
    },
    sized({ full: 600_000, ci: 90_000 }),
  );
});
