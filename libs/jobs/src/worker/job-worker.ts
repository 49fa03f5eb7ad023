import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ClaimSlot } from '../driver/job-driver';
import type { ClaimedJob, JobRow } from '../driver/job-row';
import { ConcurrencyUnenforceableError } from '../errors/operator-errors';
import { InvariantError, JobDrainedError } from '../errors/runtime-errors';
import { memoryEventBus } from '../events/memory-event-bus';
import { executeJob } from '../runtime/execute-job';
import { RunAbort } from '../runtime/run-abort';
import type { RegisteredJob } from '../registry/job-registry';
import type { JobExecution } from '../runtime/outcome';
import { systemClock, type TimerHandle } from '../util/clock';
import { silentLogger } from '../util/logger';
import { ACK_BATCH_MAX, ACK_BATCHES_IN_FLIGHT, ackBatcher } from './ack-batcher';
import { announceExhausted } from './claim-exhausted';
import { heartbeats, type Heartbeat } from './heartbeat';
import { processLimits } from './limits';
import { LowWater } from './low-water';
import { PREFETCH_PER_SLOT, prefetchBuffer } from './prefetch';
import { RescueCadence } from './rescue-cadence';
import { resolveSlots } from './slots';
import { UnservedNames } from './unserved-names';
import { WorkerPresence } from './worker-presence';
import {
  assertWorkerTimings,
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  DUE_TIMER_HORIZON_MS,
  IDLE_POLL_CEILING_MS,
  POLL_INTERVAL_MS,
  WOKEN_IDLE_POLL_CEILING_MS,
  type JobWorker,
  type JobWorkerOptions,
  type WorkerStats,
} from './worker-options';

interface HeldRun {
  readonly claimed: ClaimedJob;
  readonly abort: RunAbort;
  /** The run's end, set once the attempt is under way. */
  done: Promise<void> | undefined;
  /** Renews the run's lease until stopped. */
  readonly beat: Heartbeat;
  /** Whether its slot was given back. */
  freed: boolean;
  /** Whether a cap handed it back. */
  deferred: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Acks queued past this many keep their slot until they land, so a slow database cannot pile up settles. */
const ACK_BACKLOG_MAX = ACK_BATCH_MAX * ACK_BATCHES_IN_FLIGHT;

/**
 * How many claims a busy worker keeps on the wire. A claim's cost grows with its rows (~30 µs each in PostgreSQL on a
 * 2-core VM), so one claim at a time caps a worker near 1 / (that cost) however large the claims; two overlap the
 * database's work on one with the worker's on the other's rows.
 */
const CLAIMS_ON_THE_WIRE = 2;

/** Claim order within a queue: priority, run time, then id (UUIDv7 text sorts in mint order). */
const claimOrder = (a: ClaimedJob, b: ClaimedJob): number =>
  a.priority - b.priority || a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A worker: ONE claim per pass over every queue with a free slot, every `pollIntervalMs` while there is work, the wait
 * doubling to the idle ceiling while there is none. Its claims name the jobs it serves (`ClaimSlot.names`: the
 * registered jobs of each served queue), so a row of a job it does not know — one a newer build added, during a
 * rolling deploy — waits for a worker that knows it; such a row is logged once it waited `UNSERVED_AFTER_MS`
 * (`jobs.worker.unserved-name`, see `UnservedNames`). A freed slot and an in-process enqueue kick a pass at once; a row
 * handed back due within a minute gets a timer. Each held run's lease is renewed by its heartbeat.
 *
 * Busy, it batches both ends: a claim takes rows ahead of the free slots, as many as the measured rate starts within
 * a few ms and never one the claim puts on its final attempt (see `prefetchBuffer`, `claimAhead`), and acks leave in
 * batches (see `ackBatcher`). Per run it keeps little: no AbortController unless the body reads its signal, no timer
 * (the heartbeats share one), one promise chain. A completed run gives its slot to
 * the next row as soon as its ack is sent rather than when it lands: the slot bounds the bodies running, and a
 * commit's WAL flush (~0.7 ms here) would otherwise bound each slot to ~1,400 runs a second.
 */
export function jobWorker(options: JobWorkerOptions): JobWorker {
  const { driver, registry } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const events = options.events ?? memoryEventBus({ clock });
  const id = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS;
  const heartbeatIntervalMs =
    options.heartbeatIntervalMs ?? Math.max(1, Math.floor(visibilityTimeoutMs / 3));
  const floor = options.pollIntervalMs ?? POLL_INTERVAL_MS;
  assertWorkerTimings(visibilityTimeoutMs, heartbeatIntervalMs, floor);

  let wakeLive = false;
  const ceiling = (): number =>
    options.idlePollMaxMs ?? (wakeLive ? WOKEN_IDLE_POLL_CEILING_MS : IDLE_POLL_CEILING_MS);
  let slots: Map<string, number> = new Map();
  /** Per served queue, the job names this worker serves there: all its claims hand out (`ClaimSlot.names`). */
  let served: ReadonlyMap<string, readonly string[]> = new Map();
  let unserved: UnservedNames | undefined;
  let presence: WorkerPresence | undefined;
  const inFlight = new Map<string, number>();
  const runs = new Map<string, HeldRun>();
  const handingBack = new Set<Promise<void>>();
  const acks = ackBatcher(driver);
  const jobs = new Map<string, RegisteredJob>();
  const beats = heartbeats({
    driver,
    clock,
    logger,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    visibilityTimeoutMs,
    intervalMs: heartbeatIntervalMs,
    onLost: () => {
      stats.leasesLost++;
    },
  });
  const held = prefetchBuffer(heartbeatIntervalMs);
  const lowWater = new LowWater();
  const rescues = new RescueCadence();
  const limits = options.limits === undefined ? undefined : processLimits(options.limits, clock);
  const stats: Mutable<WorkerStats> = {
    claimed: 0,
    completed: 0,
    retried: 0,
    deadLettered: 0,
    dropped: 0,
    suspended: 0,
    interrupted: 0,
    refused: 0,
    deferred: 0,
    inFlight: 0,
    claims: 0,
    leasesLost: 0,
    lastPassAt: 0,
    wakeLive: false,
    slots: 0,
  };

  let state: 'new' | 'running' | 'draining' | 'stopped' = 'new';
  let wait = floor;
  let passTimer: TimerHandle | undefined;
  /** Claims on the wire, the passes that sent them, and the rows they asked each queue for. */
  let claiming = 0;
  const passes = new Set<Promise<void>>();
  const asked = new Map<string, number>();
  let again = false;
  /** When rows this worker handed back fall due (within the horizon), earliest first: each gets its pass on time. */
  const dueAt: number[] = [];
  let dueTimer: { at: number; handle: TimerHandle } | undefined;
  /** The drain's signal once beginDrain() ran; a manual stop() sets none, because it aborts nothing. */
  let drainSignal: string | undefined;

  const dropExhausted = (): ReadonlySet<string> =>
    new Set(
      registry
        .all()
        .filter((j) => !j.handle.retry.deadLetter)
        .map((j) => j.handle.name),
    );

  const schedule = (ms: number): void => {
    passTimer?.cancel();
    if (state !== 'running') return;
    // held rows go stale after the heartbeat interval: a pass comes by before they could
    const next = held.size() > 0 ? Math.min(ms, Math.ceil(heartbeatIntervalMs / 2)) : ms;
    passTimer = clock.setTimeout(() => kick(), next);
  };

  /**
   * Runs a pass now — while fewer than {@link CLAIMS_ON_THE_WIRE} claims are out — or asks for ONE more behind the
   * claims in flight.
   */
  const kick = (): void => {
    if (state !== 'running') return;
    if (claiming >= CLAIMS_ON_THE_WIRE) {
      again = true;
      return;
    }
    passTimer?.cancel();
    pass();
  };

  /** A claim came back: the pass asked for behind it runs now. */
  const claimDone = (want: readonly ClaimSlot[]): void => {
    claiming--;
    for (const slot of want)
      asked.set(slot.queue, (asked.get(slot.queue) ?? 0) - slot.limit - (slot.ahead ?? 0));
    if (again && state === 'running') {
      again = false;
      kick();
    }
  };

  const freeIn = (queue: string): number => (slots.get(queue) ?? 0) - (inFlight.get(queue) ?? 0);

  /**
   * What one claim asks each queue for: its free slots no held row covers, plus what tops the held rows up to the
   * prefetch target — asked only once a third of it is missing, so a busy queue is not claimed row by row. Rows a
   * claim on the wire asked for count as held, so a second claim goes out while the first is still out only when the
   * buffer runs low: claims overlap instead of queueing behind each other.
   */
  const claimSlots = (now: number): ClaimSlot[] => {
    const want: ClaimSlot[] = [];
    for (const [queue, names] of served) {
      // a queue no registered job names has nothing this worker could run
      if (names.length === 0) continue;
      const free = Math.max(0, freeIn(queue));
      // rows a claim on the wire asked for count as held: they are on their way
      const holding = held.held(queue) + (asked.get(queue) ?? 0);
      const idle = Math.max(0, free - holding);
      // Rows held (claimed, not started) by a worker that dies lapse as counted attempts: the claim takes ahead only
      // rows it does not put on their final attempt (`ahead`), at most PREFETCH_PER_SLOT per slot of the queue.
      const target =
        options.claimAhead === false
          ? 0
          : Math.min(held.target(queue, now), PREFETCH_PER_SLOT * (slots.get(queue) ?? 0));
      const short = Math.max(0, target - Math.max(0, holding - free));
      // a second claim on the wire is for the buffer only: a slot that frees meanwhile waits for a claim to return
      if ((idle > 0 && claiming === 0) || (target > 0 && short * 3 >= target))
        want.push(
          short > 0 ? { queue, limit: idle, ahead: short, names } : { queue, limit: idle, names },
        );
    }
    return want;
  };

  /** Starts held rows of `queue` while it has free slots; stale ones go back to the queue. */
  const startHeld = (queue: string): void => {
    const stale: ClaimedJob[] = [];
    while (state === 'running' && freeIn(queue) > 0) {
      const row = held.next(queue, clock.now(), stale);
      if (row === undefined) break;
      start(row);
    }
    releaseHeld(stale);
  };

  /**
   * Hands rows this worker claimed but never started back to the queue: uncounted, keeping their run time (so their
   * place in the claim order) and their last error.
   */
  const releaseHeld = (rows: readonly ClaimedJob[]): void => {
    for (const row of rows) {
      lowWater.lower(row.queue, row.runAt, clock.now());
      const settle = driver
        .nack(row.id, {
          workerId: row.workerId,
          claim: row.claim,
          error: row.lastError,
          uncounted: true,
          runAt: row.runAt,
        })
        .then(
          () => undefined,
          (error: unknown) =>
            logger.log('error', 'jobs.worker.release-failed', {
              jobId: row.id,
              error: String(error),
            }),
        )
        .finally(() => handingBack.delete(settle));
      handingBack.add(settle);
    }
  };

  /**
   * Places a claim's rows, in claim order per queue: held, then started while slots are free. While stopping, what
   * fits the free slots starts (a drain aborts it at once) and the rest goes straight back.
   */
  const place = (claimed: readonly ClaimedJob[]): void => {
    const rows = [...claimed].sort(claimOrder);
    if (state === 'running') {
      held.hold(rows, clock.now());
      for (const queue of new Set(rows.map((row) => row.queue))) startHeld(queue);
      return;
    }
    const rest: ClaimedJob[] = [];
    for (const row of rows) {
      if (freeIn(row.queue) > 0) start(row);
      else rest.push(row);
    }
    releaseHeld(rest);
  };

  /** Hands stale held rows back and sends the claim the queues need, if any. */
  const pass = (): void => {
    const now = clock.now();
    stats.lastPassAt = now;
    releaseHeld(held.takeStale(now));
    const free = claimSlots(now).map((slot) => ({
      ...slot,
      lowWater: lowWater.hint(slot.queue, now),
    }));
    // A full worker asks the queue for nothing; the run that finishes kicks the next pass.
    if (free.length === 0) {
      // with a claim out, its return runs the pass asked for meanwhile; without, held rows are checked for staleness
      if (claiming > 0) again = true;
      else if (held.size() > 0) schedule(wait);
      return;
    }
    claiming++;
    for (const slot of free)
      asked.set(slot.queue, (asked.get(slot.queue) ?? 0) + slot.limit + (slot.ahead ?? 0));
    const rescue = rescues.due(now, runs.size === 0 && held.size() === 0);
    const sent = claimAndPlace(free, now, rescue).finally(() => {
      passes.delete(sent);
      claimDone(free);
    });
    passes.add(sent);
  };

  const claimAndPlace = async (
    free: readonly ClaimSlot[],
    sentAt: number,
    rescue: boolean,
  ): Promise<void> => {
    let claimed: readonly ClaimedJob[];
    let exhausted: readonly JobRow[] = [];
    try {
      stats.claims++;
      claimed = await driver.claim({
        workerId: id,
        slots: free,
        visibilityTimeoutMs,
        dropExhausted: dropExhausted(),
        ...(limits === undefined ? {} : { excludeTenants: limits.fullTenants() }),
        onExhausted: (rows) => {
          exhausted = rows;
        },
        onLowWater: (queue, bound) => lowWater.learn(queue, bound, sentAt),
        rescue,
      });
    } catch (error) {
      if (rescue) rescues.failed(sentAt);
      // The database is down or failing over: keep polling at the idle pace and come back by ourselves.
      logger.log('error', 'jobs.claim.failed', {
        workerId: id,
        error: error instanceof Error ? error.message : String(error),
      });
      wait = Math.min(wait * 2, ceiling());
      schedule(wait);
      return;
    }
    if (exhausted.length > 0) {
      announceExhausted(exhausted, registry, logger, options.metrics).catch((error: unknown) =>
        logger.log('error', 'jobs.claim.exhausted-announce-failed', { error: String(error) }),
      );
    }
    place(claimed);
    if (claimed.length > 0) {
      wait = floor;
      schedule(floor);
    } else {
      schedule(wait);
      wait = Math.min(wait * 2, ceiling());
    }
  };

  /** A per-process cap refused the row: hand it straight back, uncounted, due after one poll. */
  const handBack = (claimed: ClaimedJob, cap: string): void => {
    stats.deferred++;
    const runAt = clock.now() + floor;
    const settle = driver
      .nack(claimed.id, {
        workerId: claimed.workerId,
        claim: claimed.claim,
        error: null,
        uncounted: true,
        runAt,
      })
      .then(
        () => {
          logger.log('debug', 'jobs.limits.deferred', {
            jobId: claimed.id,
            queue: claimed.queue,
            cap,
          });
          armDue(runAt);
        },
        (error: unknown) =>
          logger.log('error', 'jobs.limits.hand-back-failed', {
            jobId: claimed.id,
            error: String(error),
          }),
      )
      .finally(() => handingBack.delete(settle));
    handingBack.add(settle);
  };

  /** Gives a run's slot back (once): to a held row of its queue at once. */
  const freeSlot = (run: HeldRun): void => {
    if (run.freed) return;
    run.freed = true;
    const { claimed } = run;
    limits?.release(claimed);
    inFlight.set(claimed.queue, (inFlight.get(claimed.queue) ?? 1) - 1);
    held.completed(claimed.queue);
    startHeld(claimed.queue);
  };

  /** The run is over (one `then` for both outcomes: a `finally` would cost two more promises per run). */
  const ended = (run: HeldRun): void => {
    run.beat.stop();
    if (runs.get(run.claimed.id) === run) runs.delete(run.claimed.id);
    if (run.freed) return;
    freeSlot(run);
    // A slot came free: refill it at once — unless a cap handed this run back, where an immediate pass would
    // only claim the same capped rows again; the due timer brings it back after one poll.
    if (!run.deferred) kick();
  };

  /** The registered job of a name, looked up once per worker (a registry lookup builds a fresh entry each time). */
  const jobOf = (name: string): RegisteredJob | undefined => {
    let job = jobs.get(name);
    if (job === undefined) {
      job = registry.get(name);
      if (job !== undefined) jobs.set(name, job);
    }
    return job;
  };

  const start = (claimed: ClaimedJob): void => {
    stats.claimed++;
    if (limits !== undefined) {
      const verdict = limits.tryAcquire(claimed);
      if (verdict !== 'ok') return handBack(claimed, verdict);
    }
    inFlight.set(claimed.queue, (inFlight.get(claimed.queue) ?? 0) + 1);
    const abort = new RunAbort();
    // A row a claim on the wire hands back after the drain began is aborted like the rest; after a manual stop() it runs.
    if (drainSignal !== undefined) abort.abort(new JobDrainedError(id, drainSignal));
    const run: HeldRun = {
      claimed,
      abort,
      done: undefined,
      beat: beats.start(claimed, abort),
      freed: false,
      deferred: false,
    };
    runs.set(claimed.id, run);
    run.done = executeJob({
      driver,
      job: jobOf(claimed.name),
      claimed,
      clock,
      logger,
      events,
      metrics: options.metrics,
      abort,
      visibilityTimeoutMs,
      heartbeatIntervalMs,
      handBackMs: floor,
      // Once the settle is answered the row is no longer this run's: renewing it would read as a lost lease.
      onSettle: () => run.beat.stop(),
      // The body completed: its slot goes to the next run while the ack rides the next batch.
      ack: (jobId, ackOptions) => {
        const landed = acks.ack(jobId, ackOptions);
        if (acks.pending() <= ACK_BACKLOG_MAX) {
          freeSlot(run);
          kick();
        }
        return landed;
      },
    }).then(
      (execution) => {
        try {
          run.deferred = execution.outcome === 'deferred';
          record(execution);
        } finally {
          ended(run);
        }
      },
      (error: unknown) => {
        logger.log('error', 'jobs.worker.execute-failed', {
          jobId: claimed.id,
          error: error instanceof Error ? error.message : String(error),
        });
        ended(run);
      },
    );
  };

  const record = (execution: JobExecution): void => {
    switch (execution.outcome) {
      case 'completed':
        stats.completed++;
        break;
      case 'retried':
        stats.retried++;
        break;
      case 'dead-lettered':
        stats.deadLettered++;
        break;
      case 'dropped':
        stats.dropped++;
        break;
      case 'suspended':
        stats.suspended++;
        break;
      case 'interrupted':
        stats.interrupted++;
        break;
      case 'refused':
        stats.refused++;
        break;
      case 'deferred':
        stats.deferred++;
        break;
      default:
        break;
    }
    if (execution.resumeAt !== undefined) armDue(execution.resumeAt);
  };

  /**
   * A row handed back due within a minute gets a timer, so it starts on time rather than on the idle poll. Every such
   * time is kept, not only the earliest: a second retry due later must not wait for the idle ceiling either.
   */
  const armDue = (at: number): void => {
    if (at - clock.now() > DUE_TIMER_HORIZON_MS || state !== 'running') return;
    const i = dueAt.findIndex((t) => t >= at);
    if (i === -1) dueAt.push(at);
    else if (dueAt[i] !== at) dueAt.splice(i, 0, at);
    armNextDue();
  };

  const armNextDue = (): void => {
    const next = dueAt[0];
    if (next === undefined || state !== 'running' || dueTimer?.at === next) return;
    dueTimer?.handle.cancel();
    dueTimer = {
      at: next,
      handle: clock.setTimeout(
        () => {
          dueTimer = undefined;
          const now = clock.now();
          while (dueAt.length > 0 && (dueAt[0] ?? 0) <= now) dueAt.shift();
          wait = floor;
          kick();
          armNextDue();
        },
        Math.max(0, next - clock.now()),
      ),
    };
  };

  const stopDueTimers = (): void => {
    dueTimer?.handle.cancel();
    dueTimer = undefined;
    dueAt.length = 0;
  };

  const waitForRuns = async (deadlineAt: number | undefined): Promise<void> => {
    const all = Promise.all([
      ...passes,
      ...handingBack,
      ...[...runs.values()].map((r) => r.done),
    ]).then(() => 'done' as const);
    if (deadlineAt === undefined) {
      await all;
      while (runs.size > 0) await Promise.all([...runs.values()].map((r) => r.done));
      return;
    }
    let timer: TimerHandle | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = clock.setTimeout(() => resolve('deadline'), Math.max(0, deadlineAt - clock.now()));
    });
    const won = await Promise.race([all, deadline]);
    timer?.cancel();
    if (won === 'deadline' && runs.size > 0) {
      logger.log('error', 'jobs.worker.drain-abandoned', {
        workerId: id,
        jobIds: [...runs.keys()],
      });
      // A stopped worker renews nothing: the abandoned runs' leases lapse so the queue delivers them again, which is
      // what at-least-once promises. Renewed on, a job would stay running under a worker that is gone.
      for (const run of runs.values()) run.beat.stop();
    }
  };

  return {
    id,
    async start() {
      if (state !== 'new') throw new InvariantError(`jobWorker ${id} was already started.`);
      const resolved = resolveSlots(registry, options.queues, options.concurrency);
      slots = resolved.slots;
      registry.assertBound([...slots.keys()]);
      const capped = registry
        .all()
        .filter((j) => j.handle.concurrency !== null && slots.has(j.handle.queue));
      if (capped.length > 0 && driver.leases === undefined) {
        throw new ConcurrencyUnenforceableError(capped.map((j) => j.handle.name));
      }
      for (const q of resolved.unregistered)
        logger.log('warn', 'jobs.worker.queue-unregistered', { workerId: id, queue: q });
      served = new Map(
        [...slots.keys()].map((queue) => [
          queue,
          registry
            .all()
            .filter((j) => j.handle.queue === queue)
            .map((j) => j.handle.name),
        ]),
      );
      unserved = new UnservedNames({
        driver,
        logger,
        clock,
        workerId: id,
        served,
        lowWater: (queue) => lowWater.bound(queue),
      });
      state = 'running';
      stats.lastPassAt = clock.now();
      logger.log('info', 'jobs.worker.started', { workerId: id, queues: [...slots.keys()] });
      kick();
      unserved.start();
      if (driver.workerRegistry) {
        presence = new WorkerPresence({
          registry: driver.workerRegistry,
          clock,
          logger,
          workerId: id,
          slots: () => slots,
          inFlight: () => runs.keys(),
          intervalMs: heartbeatIntervalMs,
          visibilityTimeoutMs,
        });
        presence.start();
      }
    },
    signalEnqueued(queue) {
      if (state !== 'running' || !slots.has(queue)) return;
      // A woken loop passes now, then at the floor again.
      wait = floor;
      kick();
    },
    setWakeLive(live) {
      wakeLive = live;
    },
    beginDrain(signal = 'SIGTERM') {
      if (state === 'stopped' || state === 'draining') return;
      drainSignal = signal;
      state = 'draining';
      passTimer?.cancel();
      void unserved?.stop();
      stopDueTimers();
      releaseHeld(held.takeAll());
      for (const run of runs.values()) run.abort.abort(new JobDrainedError(id, signal));
      logger.log('info', 'jobs.worker.draining', { workerId: id, signal, inFlight: runs.size });
    },
    async stop(deadlineAt) {
      if (state === 'stopped') return;
      if (state !== 'draining') {
        state = 'draining';
        passTimer?.cancel();
        void unserved?.stop();
        stopDueTimers();
      }
      releaseHeld(held.takeAll());
      await waitForRuns(deadlineAt);
      await unserved?.stop();
      await presence?.stop();
      state = 'stopped';
      logger.log('info', 'jobs.worker.stopped', { workerId: id });
    },
    stats: () => ({
      ...stats,
      inFlight: runs.size,
      wakeLive,
      slots: [...slots.values()].reduce((sum, n) => sum + n, 0),
    }),
  };
}
