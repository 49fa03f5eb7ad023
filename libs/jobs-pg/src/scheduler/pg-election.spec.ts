import { Pool } from 'pg';
import {
  DEFAULT_LEASE_TTL_MS,
  jobScheduler,
  recordingLogger,
  SCHEDULER_LEASE_KEY,
  type Clock,
  type JobScheduler,
  type RecordingLogger,
} from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec, type SpecDatabase } from '../../test/pg-jobs-spec';
import { postgresJobDriver } from '../driver/pg-driver';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { postgresLeaseLeader } from './pg-lease-leader';
import { postgresSchedulerState } from './pg-scheduler-state';
import { tickJob, tickTask } from '../../../jobs/test/tick-tasks';

const tick = tickJob('pg-election');
const everySecond = tickTask(tick, 'pg-election.every-second', '* * * * * *', {
  catchUp: 'run-all',
  maxCatchUp: 100,
});

/** One scheduler "process": its own pool, driver, state and lease leader on the shared database and frozen clock. */
interface Member {
  readonly scheduler: JobScheduler;
  readonly pool: Pool;
  dead: boolean;
  /** Its pool was ended by the test: its database is out of reach, its process runs on. */
  cut: boolean;
}

/**
 * Three schedulers on one PostgreSQL, driven by one frozen clock. Every state and leader call is tracked, so the
 * driver can wait until the real database work a clock step started has settled (no wall-clock sleeps).
 */
class PgFleet {
  readonly clock: FrozenClock = frozenClock();
  readonly logger: RecordingLogger = recordingLogger();
  readonly members: Member[] = [];
  readonly fires = new Map<number, number>();
  #inFlight = 0;
  #started = 0;

  constructor(private readonly db: SpecDatabase) {}

  spawn(): Member {
    const index = this.members.length;
    const pool = new Pool({ connectionString: this.db.url, max: 3 });
    pool.on('error', () => undefined);
    const executor = pgPoolExecutor(pool);
    const clock = this.clock;
    const member: Member = {
      pool,
      dead: false,
      cut: false,
      scheduler: undefined as unknown as JobScheduler,
    };
    const processClock: Clock = {
      now: () => clock.now(),
      setTimeout: (fn, ms) => clock.setTimeout(() => (member.dead ? undefined : fn()), ms),
    };
    const state = this.#tracked(postgresSchedulerState({ executor, clock }), (call) => {
      if (call === 'fire') this.fires.set(index, (this.fires.get(index) ?? 0) + 1);
    });
    const leader = this.#tracked(
      postgresLeaseLeader({ executor, clock, holderId: `member-${index}` }),
      () => undefined,
    );
    Object.assign(member, {
      scheduler: jobScheduler({
        driver: postgresJobDriver({ executor, clock }),
        tasks: [everySecond],
        clock: processClock,
        logger: this.logger,
        leader,
        state,
      }),
    });
    this.members.push(member);
    member.scheduler.start();
    return member;
  }

  /** The members alive that believe they lead. */
  leaders(): Member[] {
    return this.members.filter((m) => !m.dead && m.scheduler.isLeader());
  }

  /** Moves the clock one step and waits until every round it started (and any it re-armed at once) settled. */
  async step(ms: number): Promise<void> {
    await this.clock.advance(ms);
    await this.#settled();
    for (;;) {
      const before = this.#started;
      await this.clock.flush();
      await this.#settled();
      if (this.#started === before) return;
    }
  }

  async stop(): Promise<void> {
    for (const m of this.members) if (!m.dead) await m.scheduler.stop();
    for (const m of this.members) if (!m.cut) await m.pool.end();
  }

  /** Rows per occurrence, as the database holds them. */
  async occurrences(): Promise<Map<number, number>> {
    const { rows } = await this.db.pool.query<{ at: string; n: number }>(
      `select input->>'occurrenceMs' as at, count(*)::int as n from x_jobs group by 1`,
    );
    return new Map(rows.map((r) => [Number(r.at), r.n]));
  }

  #tracked<T extends object>(target: T, seen: (call: string) => void): T {
    return new Proxy(target, {
      get: (obj, prop, receiver) => {
        const value: unknown = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          this.#inFlight += 1;
          this.#started += 1;
          seen(String(prop));
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(obj, args);
          } finally {
            this.#inFlight -= 1;
          }
        };
      },
    });
  }

  /** Until no tracked call is on the wire and a macrotask turn started none: the rounds are parked on timers. */
  async #settled(): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#inFlight === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.#inFlight === 0) return;
      }
      if (Date.now() > deadline) throw new Error('scheduler rounds did not settle in 10 s');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
}

function expectEachSecondOnce(counts: Map<number, number>, from: number, to: number): void {
  const expected: number[] = [];
  for (let at = from; at <= to; at += 1_000) expected.push(at);
  expect([...counts.keys()].sort((a, b) => a - b)).toEqual(expected);
  expect([...counts.values()].every((n) => n === 1)).toBe(true);
}

describe('three schedulers racing on one PostgreSQL (driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: [...JOB_TABLES, 'x_scheduler_state', 'x_task_pauses'] });
  let fleet: PgFleet;

  beforeEach(() => {
    fleet = new PgFleet(db);
  });
  afterEach(() => fleet.stop());

  it('enqueues each of 100 every-second occurrences exactly once, under exactly one leader', async () => {
    const armedAt = fleet.clock.now();
    for (let i = 0; i < 3; i++) fleet.spawn();
    await fleet.step(0);
    for (let i = 0; i < 100; i++) {
      await fleet.step(1_000);
      expect(fleet.leaders()).toHaveLength(1);
    }
    expectEachSecondOnce(await fleet.occurrences(), armedAt + 1_000, armedAt + 100_000);
    expect(fleet.fires.size).toBe(1);
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from x_job_leases where key = $1',
      [SCHEDULER_LEASE_KEY],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('demotes a leader that loses its database, and hands over within one lease TTL with no double fire', async () => {
    const armedAt = fleet.clock.now();
    for (let i = 0; i < 3; i++) fleet.spawn();
    await fleet.step(0);
    for (let i = 0; i < 35; i++) await fleet.step(1_000);
    const [first] = fleet.leaders();
    // its process runs on, but every statement it sends fails: its renewal cannot say "where holder = me"
    first!.cut = true;
    await first!.pool.end();
    const cutAt = fleet.clock.now();
    let demotedAt: number | undefined;
    let handedOverAt: number | undefined;
    while (fleet.clock.now() < armedAt + 100_000) {
      await fleet.step(1_000);
      if (demotedAt === undefined && !first!.scheduler.isLeader()) demotedAt = fleet.clock.now();
      const leading = fleet.members.filter((m) => m.scheduler.isLeader());
      expect(leading.length).toBeLessThanOrEqual(1); // the cut one included: never two at once
      if (handedOverAt === undefined && leading.length === 1 && leading[0] !== first) {
        handedOverAt = fleet.clock.now();
      }
    }
    expect(demotedAt).toBeDefined();
    expect(handedOverAt).toBeDefined();
    expect(demotedAt!).toBeLessThanOrEqual(handedOverAt!);
    expect(handedOverAt! - cutAt).toBeLessThanOrEqual(DEFAULT_LEASE_TTL_MS);
    expect(fleet.logger.named('jobs.scheduler.leader.lost')).toHaveLength(1);
    expectEachSecondOnce(await fleet.occurrences(), armedAt + 1_000, armedAt + 100_000);
    expect(fleet.logger.named('jobs.scheduler.fire.refused')).toEqual([]);
  });

  it('hands over within one lease TTL when the leader is killed, with no double fire', async () => {
    const armedAt = fleet.clock.now();
    for (let i = 0; i < 3; i++) fleet.spawn();
    await fleet.step(0);
    for (let i = 0; i < 35; i++) await fleet.step(1_000);
    const [first] = fleet.leaders();
    first!.dead = true; // SIGKILL: its timers never fire again and it releases nothing
    const killedAt = fleet.clock.now();
    let handedOverAt: number | undefined;
    while (fleet.clock.now() < armedAt + 100_000) {
      await fleet.step(1_000);
      const live = fleet.leaders();
      expect(live.length).toBeLessThanOrEqual(1);
      if (handedOverAt === undefined && live.length === 1) handedOverAt = fleet.clock.now();
    }
    expect(handedOverAt).toBeDefined();
    expect(handedOverAt! - killedAt).toBeLessThanOrEqual(DEFAULT_LEASE_TTL_MS);
    expect(fleet.leaders()[0]).not.toBe(first);
    // run-all: the new leader fires what the dead one missed, once each, and keeps going
    expectEachSecondOnce(await fleet.occurrences(), armedAt + 1_000, armedAt + 100_000);
    expect(fleet.logger.named('jobs.scheduler.fire.refused')).toEqual([]);
    expect(fleet.fires.size).toBe(2);
  });
});
