import type { TaskHandle } from '../../declare/task';
import type { JobRow } from '../../driver/job-row';
import { memoryJobDriver, type MemoryJobDriver } from '../../driver/memory';
import { frozenClock, type FrozenClock } from '../../testing/frozen-clock';
import type { Clock } from '../../util/clock';
import { recordingLogger, type RecordingLogger } from '../../util/logger';
import { jobScheduler, type JobScheduler } from '../job-scheduler';
import type { LeaseLeader } from '../lease-leader';
import { memoryLeaseLeader, memoryLeaseTable, type MemoryLeaseTable } from '../memory-lease-leader';
import { memorySchedulerState } from '../memory-scheduler-state';
import type { SchedulerState } from '../scheduler-state';

/** Options of {@link schedulerFleet}. */
export interface SchedulerFleetOptions {
  /** Where the frozen clock starts (default 2026-01-01T00:00:00Z). */
  readonly startMs?: number;
  /** The lease TTL of every member (default 30 s). */
  readonly ttlMs?: number;
  /** Each member's tick interval, as `jobScheduler`'s. */
  readonly tickIntervalMs?: number;
  /** How often each member renews its leader lease, as `jobScheduler`'s. */
  readonly renewEveryMs?: number;
}

/** One store call, as the fleet counted it: who made it, which member, and when. */
export interface FleetCall {
  /** The index of the member that made the call. */
  readonly member: number;
  /** The state or leader method called. */
  readonly call: string;
  /** When it was called, on the fleet's clock (epoch ms). */
  readonly at: number;
}

/**
 * Scheduler processes over one frozen clock, one memory driver, one memory state and one lease table — the in-memory
 * form of several pods on one database. Every state and leader call is counted, and a member can be killed (its
 * timers never fire again, as after SIGKILL) instead of stopped.
 */
export interface SchedulerFleet {
  /** The frozen clock every member runs on; advance it to drive the fleet. */
  readonly clock: FrozenClock;
  /** The memory driver fires enqueue into. */
  readonly driver: MemoryJobDriver;
  /** The scheduler state every member shares. */
  readonly state: SchedulerState;
  /** The lease table the members elect their leader in. */
  readonly table: MemoryLeaseTable;
  /** Records what every member logged. */
  readonly logger: RecordingLogger;
  /** Every member spawned so far, in spawn order (killed and stopped ones included). */
  readonly members: JobScheduler[];
  /** Every state and leader call of every member. */
  readonly calls: FleetCall[];
  /** Starts a new scheduler process over the shared stores. */
  spawn(tasks: readonly TaskHandle[]): JobScheduler;
  /** SIGKILL: the member's timers never fire again and it releases nothing. */
  kill(member: JobScheduler): void;
  /** The members alive (not killed, not stopped) that believe they lead. */
  leaders(): JobScheduler[];
  /** Every job row, in id order (rows minted in one millisecond are in no particular order). */
  rows(): Promise<JobRow[]>;
  /** Stops every live member. */
  stopAll(): Promise<void>;
}

/** Builds a {@link SchedulerFleet}. */
export function schedulerFleet(options: SchedulerFleetOptions = {}): SchedulerFleet {
  const clock = frozenClock(options.startMs);
  const driver = memoryJobDriver({ clock });
  const table = memoryLeaseTable({ clock });
  const logger = recordingLogger();
  const calls: FleetCall[] = [];
  const members: JobScheduler[] = [];
  const killed = new Set<JobScheduler>();
  const killers = new Map<JobScheduler, () => void>();
  const shared = memorySchedulerState({ driver, clock });

  const counted = <T extends object>(target: T, member: () => number): T =>
    new Proxy(target, {
      get(obj, prop, receiver) {
        const value: unknown = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.push({ member: member(), call: String(prop), at: clock.now() });
          return (value as (...a: unknown[]) => unknown).apply(obj, args);
        };
      },
    });

  return {
    clock,
    driver,
    state: shared,
    table,
    logger,
    members,
    calls,
    spawn(tasks) {
      const index = members.length;
      let dead = false;
      const processClock: Clock = {
        now: () => clock.now(),
        setTimeout: (fn, ms) => clock.setTimeout(() => (dead ? undefined : fn()), ms),
      };
      const leader: LeaseLeader = memoryLeaseLeader({
        table,
        holderId: `member-${index}`,
        ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
      });
      const scheduler = jobScheduler({
        driver,
        tasks,
        clock: processClock,
        logger,
        leader: counted(leader, () => index),
        state: counted(shared, () => index),
        ...(options.tickIntervalMs === undefined ? {} : { tickIntervalMs: options.tickIntervalMs }),
        ...(options.renewEveryMs === undefined ? {} : { renewEveryMs: options.renewEveryMs }),
      });
      members.push(scheduler);
      const kill = (): void => {
        dead = true;
      };
      killers.set(scheduler, kill);
      scheduler.start();
      return scheduler;
    },
    kill(member) {
      killers.get(member)?.();
      killed.add(member);
    },
    leaders: () => members.filter((m) => !killed.has(m) && m.status === 'running' && m.isLeader()),
    async rows() {
      const all: JobRow[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await driver.introspect.list({
          limit: 200,
          ...(after === undefined ? {} : { after }),
        });
        all.push(...page);
        if (page.length < 200) break;
        after = page[page.length - 1]?.id;
      }
      return all.reverse();
    },
    async stopAll() {
      for (const m of members) if (!killed.has(m)) await m.stop();
    },
  };
}
