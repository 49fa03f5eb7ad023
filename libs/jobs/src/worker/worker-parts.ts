import { memoryEventBus } from '../events/memory-event-bus';
import { ackBatcher } from './ack-batcher';
import { ClaimPlanner } from './claim-planner';
import { DueTimers } from './due-timers';
import { HandBacks } from './hand-backs';
import { heartbeats, type Heartbeats } from './heartbeat';
import { processLimits, type ProcessLimits } from './limits';
import { OwedQueues } from './owed-queues';
import { PassLoop } from './pass-loop';
import { prefetchBuffer, type PrefetchBuffer } from './prefetch';
import { RescueCadence } from './rescue-cadence';
import { SlotLedger } from './slot-ledger';
import { dropExhaustedNames } from './slots';
import { UnservedNames } from './unserved-names';
import { emptyWorkerStats, type MutableWorkerStats } from './worker-stats';
import { WorkerPresence } from './worker-presence';
import { WorkerRuns } from './worker-runs';
import { workerHandOff } from './worker-hand-off';
import {
  IDLE_POLL_CEILING_MS,
  WOKEN_IDLE_POLL_CEILING_MS,
  type JobWorkerOptions,
} from './worker-options';
import type { WorkerSettings } from './worker-settings';

/** Where a worker is in its life: its parts claim only while it is `running`. */
export type WorkerState = 'new' | 'running' | 'draining' | 'stopped';

/**
 * A worker's parts (see `jobWorker`), built in the order they wire up, and the state they read that its start and stop
 * move (`worker-lifecycle.ts`). The parts that need the served queues — the planner, the presence row, the watch for
 * unserved names — are built by the start, with the builders here.
 */
export class WorkerParts {
  /** Where the worker is in its life. */
  state: WorkerState = 'new';
  /** The close of a stop, once one stop's wait for the work ended (a second stop awaits the same one). */
  closing: Promise<void> | undefined;
  /** The planner once the worker started. */
  planner: ClaimPlanner | undefined;
  /** The watch for rows of job names no worker serves, once the worker started. */
  unserved: UnservedNames | undefined;
  /** The worker's registry row, once it started on a driver that keeps one. */
  presence: WorkerPresence | undefined;
  /** Per served queue, the job names this worker serves there (none before the start). */
  served: ReadonlyMap<string, readonly string[]> = new Map();
  readonly stats: MutableWorkerStats;
  readonly limits: ProcessLimits | undefined;
  readonly ledger: SlotLedger;
  readonly handBacks: HandBacks;
  /** The served queues owed a claim when a slot frees. */
  readonly owed = new OwedQueues();
  readonly held: PrefetchBuffer;
  readonly beats: Heartbeats;
  readonly timers: DueTimers;
  readonly work: WorkerRuns;
  /** The runs in flight (`work`'s). */
  readonly runs: WorkerRuns['runs'];
  readonly loop: PassLoop;
  /** The worker's side of a backend's hand-off. */
  readonly sides: ReturnType<typeof workerHandOff>;

  constructor(
    readonly options: JobWorkerOptions,
    readonly settings: WorkerSettings,
  ) {
    this.stats = emptyWorkerStats();
    this.limits =
      options.limits === undefined ? undefined : processLimits(options.limits, settings.clock);
    this.ledger = new SlotLedger(this.limits);
    this.handBacks = new HandBacks(options.driver, settings.logger, (queue) =>
      this.owed.owe(queue),
    );
    this.held = prefetchBuffer(settings.heartbeatIntervalMs);
    this.beats = this.buildHeartbeats();
    this.timers = this.buildDueTimers();
    this.work = this.buildRuns();
    this.runs = this.work.runs;
    this.loop = this.buildPassLoop();
    this.sides = this.buildHandOff();
  }

  /** The worker's registry row on a driver that keeps one: its due beats ride the claims. */
  buildPresence(): WorkerPresence | undefined {
    const { clock, logger, id, heartbeatIntervalMs, visibilityTimeoutMs } = this.settings;
    return (
      this.options.driver.workerRegistry &&
      new WorkerPresence({
        registry: this.options.driver.workerRegistry,
        clock,
        logger,
        workerId: id,
        slots: () => this.ledger.sizes(),
        inFlight: () => this.runs.keys(),
        intervalMs: heartbeatIntervalMs,
        visibilityTimeoutMs,
      })
    );
  }

  /** What the worker's claims ask for, over the queues it serves; `presence` rides them. */
  buildPlanner(presence: WorkerPresence | undefined): ClaimPlanner {
    const { options } = this;
    return new ClaimPlanner({
      workerId: this.settings.id,
      visibilityTimeoutMs: this.settings.visibilityTimeoutMs,
      ledger: this.ledger,
      served: this.served,
      held: this.held,
      rescues: new RescueCadence(),
      claimAhead: options.claimAhead !== false,
      dropExhausted: () => dropExhaustedNames(options.registry),
      owed: this.owed,
      ...(presence === undefined ? {} : { presence }),
    });
  }

  /** The watch that logs rows of job names this worker does not serve. */
  buildUnserved(): UnservedNames {
    const { logger, clock, id } = this.settings;
    return new UnservedNames({
      driver: this.options.driver,
      logger,
      clock,
      workerId: id,
      served: this.served,
    });
  }

  private buildHeartbeats(): Heartbeats {
    const { options, stats } = this;
    const { clock, logger, visibilityTimeoutMs, heartbeatIntervalMs } = this.settings;
    return heartbeats({
      driver: options.driver,
      clock,
      logger,
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      visibilityTimeoutMs,
      intervalMs: heartbeatIntervalMs,
      onLost: () => stats.leasesLost++,
    });
  }

  private buildDueTimers(): DueTimers {
    const { options, stats, held } = this;
    return new DueTimers({
      clock: this.settings.clock,
      floorMs: this.settings.floorMs,
      ceilingMs: () =>
        options.idlePollMaxMs ??
        (stats.wakeLive ? WOKEN_IDLE_POLL_CEILING_MS : IDLE_POLL_CEILING_MS),
      holdMaxMs: Math.ceil(this.settings.heartbeatIntervalMs / 2),
      holding: () => held.size() > 0,
      pass: () => this.loop.kick(),
    });
  }

  private buildRuns(): WorkerRuns {
    const { options } = this;
    const { id, clock, logger, visibilityTimeoutMs, heartbeatIntervalMs, floorMs } = this.settings;
    return new WorkerRuns({
      workerId: id,
      driver: options.driver,
      registry: options.registry,
      clock,
      logger,
      events: options.events ?? memoryEventBus({ clock }),
      metrics: options.metrics,
      visibilityTimeoutMs,
      heartbeatIntervalMs,
      handBackMs: floorMs,
      ledger: this.ledger,
      held: this.held,
      beats: this.beats,
      acks: ackBatcher(options.driver),
      handBacks: this.handBacks,
      timers: this.timers,
      stats: this.stats,
      running: () => this.state === 'running',
      freed: () => this.loop.freed(),
    });
  }

  private buildPassLoop(): PassLoop {
    const { options, work } = this;
    return new PassLoop({
      workerId: this.settings.id,
      driver: options.driver,
      registry: options.registry,
      clock: this.settings.clock,
      logger: this.settings.logger,
      metrics: options.metrics,
      stats: this.stats,
      handBacks: this.handBacks,
      held: this.held,
      timers: this.timers,
      owed: this.owed,
      heard: () => this.stats.wakeLive && this.limits === undefined,
      planner: () => this.planner,
      running: () => this.state === 'running',
      place: (claimed) => work.place(claimed),
      idle: () => this.sides.idle(),
      returned: () => this.sides.returned(),
    });
  }

  private buildHandOff(): ReturnType<typeof workerHandOff> {
    const { work } = this;
    return workerHandOff({
      workerId: this.settings.id,
      visibilityTimeoutMs: this.settings.visibilityTimeoutMs,
      ledger: this.ledger,
      held: this.held,
      limits: this.limits,
      handBacks: this.handBacks,
      served: () => this.served,
      planner: () => this.planner,
      running: () => this.state === 'running',
      place: (rows) => work.place(rows),
    });
  }
}
