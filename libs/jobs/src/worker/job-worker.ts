import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { InvariantError } from '../errors/runtime-errors';
import { memoryEventBus } from '../events/memory-event-bus';
import { systemClock } from '../util/clock';
import { silentLogger } from '../util/logger';
import { ackBatcher } from './ack-batcher';
import { ClaimPlanner } from './claim-planner';
import { drainWork } from './drain-work';
import { DueTimers } from './due-timers';
import { HandBacks } from './hand-backs';
import { heartbeats } from './heartbeat';
import { processLimits } from './limits';
import { PassLoop } from './pass-loop';
import { prefetchBuffer } from './prefetch';
import { RescueCadence } from './rescue-cadence';
import { SlotLedger } from './slot-ledger';
import { dropExhaustedNames, resolveSlots, servedNames } from './slots';
import { UnservedNames } from './unserved-names';
import { emptyWorkerStats } from './worker-stats';
import { WorkerPresence } from './worker-presence';
import { WorkerRuns } from './worker-runs';
import { workerHandOff } from './worker-hand-off';
import {
  assertWorkerTimings,
  DEFAULT_VISIBILITY_TIMEOUT_MS,
  IDLE_POLL_CEILING_MS,
  POLL_INTERVAL_MS,
  WOKEN_IDLE_POLL_CEILING_MS,
  type JobWorker,
  type JobWorkerOptions,
} from './worker-options';
import type { WakeHandOff } from '../driver/backend';

/**
 * A worker: ONE claim per pass over every queue with a free slot (what it asks for: {@link ClaimPlanner}; its slots:
 * {@link SlotLedger}; the passes and the claims on the wire: {@link PassLoop}), every `pollIntervalMs` while there is
 * work, the wait doubling to the idle ceiling while there is none ({@link DueTimers}). Its claims name the jobs it
 * serves, so a row of a job it does not know waits for a worker that knows it (logged by `UnservedNames`). A freed slot
 * and an in-process enqueue kick a pass at once; so does a cross-process wake, which also asks for one sweep pass once
 * the rows its throttled announcement stands for have committed; a row handed back due within a minute gets a timer.
 * Each held run's lease is renewed by its heartbeat; a stop waits for the work under way ({@link drainWork}).
 *
 * Busy, it batches both ends: a claim takes rows ahead of the free slots (see `prefetchBuffer`), and acks leave in
 * batches (see `ackBatcher`). Per run it keeps little: no AbortController unless the body reads its signal, no timer
 * (the heartbeats share one), one promise chain. A completed run gives its slot to the next row as soon as its ack is
 * sent rather than when it lands: a commit's WAL flush (~0.7 ms here) would otherwise bound each slot to ~1,400 runs
 * a second.
 */
export function jobWorker(
  options: JobWorkerOptions,
): JobWorker & { readonly handOff: WakeHandOff } {
  const { driver, registry } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const id = options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? DEFAULT_VISIBILITY_TIMEOUT_MS;
  const heartbeatIntervalMs =
    options.heartbeatIntervalMs ?? Math.max(1, Math.floor(visibilityTimeoutMs / 3));
  const floor = options.pollIntervalMs ?? POLL_INTERVAL_MS;
  assertWorkerTimings(visibilityTimeoutMs, heartbeatIntervalMs, floor);

  const stats = emptyWorkerStats();
  const limits = options.limits === undefined ? undefined : processLimits(options.limits, clock);
  const ledger = new SlotLedger(limits);
  let planner: ClaimPlanner | undefined;
  let unserved: UnservedNames | undefined;
  let presence: WorkerPresence | undefined;
  let served: ReadonlyMap<string, readonly string[]> = new Map();
  const handBacks = new HandBacks(driver, logger);
  const held = prefetchBuffer(heartbeatIntervalMs);
  const beats = heartbeats({
    driver,
    clock,
    logger,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    visibilityTimeoutMs,
    intervalMs: heartbeatIntervalMs,
    onLost: () => stats.leasesLost++,
  });
  const timers = new DueTimers({
    clock,
    floorMs: floor,
    ceilingMs: () =>
      options.idlePollMaxMs ?? (stats.wakeLive ? WOKEN_IDLE_POLL_CEILING_MS : IDLE_POLL_CEILING_MS),
    holdMaxMs: Math.ceil(heartbeatIntervalMs / 2),
    holding: () => held.size() > 0,
    pass: () => kick(),
  });
  let state: 'new' | 'running' | 'draining' | 'stopped' = 'new';
  const work = new WorkerRuns({
    workerId: id,
    driver,
    registry,
    clock,
    logger,
    events: options.events ?? memoryEventBus({ clock }),
    metrics: options.metrics,
    visibilityTimeoutMs,
    heartbeatIntervalMs,
    handBackMs: floor,
    ledger,
    held,
    beats,
    acks: ackBatcher(driver),
    handBacks,
    timers,
    stats,
    running: () => state === 'running',
    kick: () => kick(),
  });
  const { runs } = work;
  const loop = new PassLoop({
    workerId: id,
    driver,
    registry,
    clock,
    logger,
    metrics: options.metrics,
    stats,
    handBacks,
    held,
    timers,
    planner: () => planner,
    running: () => state === 'running',
    place: (claimed) => work.place(claimed),
    idle: () => sides.idle(),
    returned: () => sides.returned(),
  });
  const kick = (): void => loop.kick();

  const sides = workerHandOff({
    workerId: id,
    visibilityTimeoutMs,
    ledger,
    held,
    limits,
    handBacks,
    served: () => served,
    planner: () => planner,
    running: () => state === 'running',
    place: (rows) => work.place(rows),
  });
  const { handOff } = sides;

  /** Stops claiming: no pass, no timer, the rows held handed back. */
  const stopClaiming = (): void => {
    state = 'draining';
    timers.stop();
    void unserved?.stop();
  };

  return {
    id,
    handOff,
    async start() {
      if (state !== 'new') throw new InvariantError(`jobWorker ${id} was already started.`);
      const resolved = resolveSlots(registry, options.queues, options.concurrency);
      registry.assertBound([...resolved.slots.keys()]);
      served = servedNames(registry, resolved.slots, driver.leases !== undefined);
      for (const q of resolved.unregistered)
        logger.log('warn', 'jobs.worker.queue-unregistered', { workerId: id, queue: q });
      ledger.serve(resolved.slots);
      stats.slots = ledger.total();
      // the registry row: its due beats ride the claims (an idle worker's presence costs no statement of its own)
      presence =
        driver.workerRegistry &&
        new WorkerPresence({
          registry: driver.workerRegistry,
          clock,
          logger,
          workerId: id,
          slots: () => ledger.sizes(),
          inFlight: () => runs.keys(),
          intervalMs: heartbeatIntervalMs,
          visibilityTimeoutMs,
        });
      planner = new ClaimPlanner({
        workerId: id,
        visibilityTimeoutMs,
        ledger,
        served,
        held,
        rescues: new RescueCadence(),
        claimAhead: options.claimAhead !== false,
        dropExhausted: () => dropExhaustedNames(registry),
        ...(presence === undefined ? {} : { presence }),
      });
      unserved = new UnservedNames({
        driver,
        logger,
        clock,
        workerId: id,
        served,
      });
      state = 'running';
      timers.start();
      stats.lastPassAt = clock.now();
      logger.log('info', 'jobs.worker.started', { workerId: id, queues: [...ledger.queues()] });
      kick();
      unserved.start();
      presence?.start();
    },
    signalEnqueued(queue, sweepAfterMs) {
      if (state !== 'running' || !ledger.serves(queue)) return;
      // A woken loop passes now (or right after the claim on the wire), then at the floor again — and, for a
      // throttled wake, sweeps once more when the rows its announcement stands for have committed.
      timers.woken(sweepAfterMs);
      loop.woken();
    },
    signalSweep(queue, sweepAfterMs) {
      if (state !== 'running' || !ledger.serves(queue)) return;
      timers.sweepIn(sweepAfterMs);
    },
    setWakeLive(live) {
      stats.wakeLive = live;
    },
    beginDrain(signal = 'SIGTERM') {
      if (state === 'stopped' || state === 'draining') return;
      stopClaiming();
      handBacks.release(held.takeAll());
      work.drain(signal);
      logger.log('info', 'jobs.worker.draining', { workerId: id, signal, inFlight: runs.size });
    },
    async stop(deadlineAt) {
      if (state === 'stopped') return;
      if (state !== 'draining') stopClaiming();
      handBacks.release(held.takeAll());
      await drainWork(
        { passes: loop.passes, handingBack: handBacks.pending, runs },
        deadlineAt,
        clock,
        logger,
        id,
      );
      await unserved?.stop();
      await presence?.stop();
      state = 'stopped';
      logger.log('info', 'jobs.worker.stopped', { workerId: id });
    },
    stats: () => ({ ...stats, inFlight: runs.size }),
  };
}
