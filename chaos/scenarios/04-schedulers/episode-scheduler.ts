import {
  job,
  jobScheduler,
  leaseStoreLeader,
  t,
  task,
  type JobScheduler,
  type JobsLogger,
  type LeaseLeader,
  type SchedulerState,
} from '@ultimat3/jobs';
import { fireJobName, type TaskSpec } from './episodes';
import { fastClock, type FastClock, type FastClockPlan } from './fast-clock';
import type { SchedulerBackend } from './scheduler-backend';

/** What the spec tells a scheduler process about one episode. Plain JSON. */
export interface EpisodeCommand {
  readonly episode: number;
  readonly tasks: readonly TaskSpec[];
  readonly clock: FastClockPlan;
  /** Driven ms between lease renewals (a third of the lease's real TTL, times the speed). */
  readonly renewEveryMs: number;
  /** Driven ms a leader sleeps at most between looks. */
  readonly tickIntervalMs: number;
}

/** What a process counted over one episode, reported when the episode's scheduler stops. */
export interface EpisodeCounts {
  /** Log events by name (`jobs.scheduler.fire.refused`, `jobs.scheduler.leader.acquired`, …). */
  readonly events: Record<string, number>;
  /** Fires SENT when the process's last successful lease ask was more than a TTL ago. */
  readonly staleSent: number;
  /** Fires answered `fired` after the lease had lapsed (their row landed; the watermark CAS let them). */
  readonly staleLanded: number;
  /** Fires answered `refused` (the watermark had moved: another leader fired, the fence held). */
  readonly refused: number;
}

/** One episode's scheduler in this process: its clock, its tasks and what it counted. */
export interface EpisodeScheduler {
  readonly scheduler: JobScheduler;
  readonly clock: FastClock;
  counts(): EpisodeCounts;
  /** The lease and state calls on the wire now, with their age in real ms (what a stuck run waits on). */
  inFlight(): string[];
  /** The last event the scheduler logged about `task` (armed, fired, catch-up, refused, failed). */
  lastEvent(task: string): string | undefined;
}

/** The calls on the wire: what each is and when it was sent (real ms). */
type InFlight = Map<number, { readonly what: string; readonly sentAt: number }>;

/** Runs `call`, listed in `wire` while it is out. */
async function traced<T>(wire: InFlight, what: string, call: () => Promise<T>): Promise<T> {
  const id = wire.size === 0 ? 0 : Math.max(...wire.keys()) + 1;
  wire.set(id, { what, sentAt: monoMs() });
  try {
    return await call();
  } finally {
    wire.delete(id);
  }
}

/** Real ms on the monotonic clock (libfaketime leaves it alone). */
const monoMs = (): number => Number(process.hrtime.bigint() / 1_000_000n);

/**
 * Builds the scheduler of one episode on `backend`: the episode's tasks (each occurrence enqueues one row carrying the
 * task, the occurrence and who fired it, keyed per fire so the second layer — the occurrence-keyed dedupe against a
 * live row — cannot hide a second fire: in production the first row has usually finished by then, and a finished
 * row dedupes nothing), the election over the backend's lease store on the SERVER's clock with a short real TTL, and
 * the driven clock for everything the scheduler decides.
 */
export function episodeScheduler(
  backend: SchedulerBackend,
  command: EpisodeCommand,
  identity: { readonly holderId: string; readonly ttlMs: number },
): EpisodeScheduler {
  const events: Record<string, number> = {};
  const lastByTask = new Map<string, string>();
  const logger: JobsLogger = {
    log: (_level, event, fields) => {
      events[event] = (events[event] ?? 0) + 1;
      const name = fields?.['task'];
      if (typeof name === 'string') lastByTask.set(name, `${event} ${JSON.stringify(fields)}`);
    },
  };
  let seq = 0;
  const fire = job({
    name: fireJobName(command.episode),
    input: t.object({
      task: t.string,
      occurrenceMs: t.number.int(),
      holder: t.string,
      seq: t.number.int(),
    }),
    idempotencyKey: ({ holder, seq: n }) => `${holder}:${n}`,
    tenant: 'none',
  });
  const tasks = command.tasks.map((spec) =>
    task({
      name: spec.name,
      cron: spec.cron,
      tz: spec.tz,
      catchUp: spec.catchUp,
      ...(spec.maxCatchUp === undefined ? {} : { maxCatchUp: spec.maxCatchUp }),
      enqueue: (occurrenceMs) => [
        [fire, { task: spec.name, occurrenceMs, holder: identity.holderId, seq: ++seq }],
      ],
    }),
  );
  const lease = { lastGrantedAt: -Infinity };
  const wire: InFlight = new Map();
  const leader = watchedLeader(
    leaseStoreLeader({
      leases: backend.leases,
      ttlMs: identity.ttlMs,
      holderId: identity.holderId,
    }),
    lease,
    wire,
  );
  const stale = { staleSent: 0, staleLanded: 0, refused: 0 };
  const state = watchedState(
    backend.state,
    () => monoMs() - lease.lastGrantedAt > identity.ttlMs,
    stale,
    wire,
  );
  const clock = fastClock(command.clock);
  const scheduler = jobScheduler({
    driver: backend.driver,
    tasks,
    leader,
    state,
    clock,
    logger,
    renewEveryMs: command.renewEveryMs,
    tickIntervalMs: command.tickIntervalMs,
  });
  return {
    scheduler,
    clock,
    counts: () => ({ events: { ...events }, ...stale }),
    inFlight: () => [...wire.values()].map((c) => `${c.what} ${monoMs() - c.sentAt} ms`),
    lastEvent: (name) => lastByTask.get(name),
  };
}

/** The leader, noting when each granted ask was SENT (the lease runs from no earlier than that). */
function watchedLeader(
  inner: LeaseLeader,
  lease: { lastGrantedAt: number },
  wire: InFlight,
): LeaseLeader {
  return {
    holderId: inner.holderId,
    release: () => traced(wire, 'release', () => inner.release()),
    async acquire() {
      const sentAt = monoMs();
      const granted = await traced(wire, 'acquire', () => inner.acquire());
      if (granted) lease.lastGrantedAt = sentAt;
      return granted;
    },
  };
}

/** The state, counting fires sent or answered after this process's lease lapsed, and refused fires. */
function watchedState(
  inner: SchedulerState,
  lapsed: () => boolean,
  counts: { staleSent: number; staleLanded: number; refused: number },
  wire: InFlight,
): SchedulerState {
  return {
    ...inner,
    load: (tasks) => traced(wire, 'load', () => inner.load(tasks)),
    skipTo: (name, to, from) => traced(wire, `skipTo ${name}`, () => inner.skipTo(name, to, from)),
    pausedTasks: () => traced(wire, 'pausedTasks', () => inner.pausedTasks()),
    async fire(request) {
      if (lapsed()) counts.staleSent++;
      const result = await traced(wire, `fire ${request.task} ${request.occurrenceMs}`, () =>
        inner.fire(request),
      );
      if (!result.fired) counts.refused++;
      else if (lapsed()) counts.staleLanded++;
      return result;
    },
  };
}
