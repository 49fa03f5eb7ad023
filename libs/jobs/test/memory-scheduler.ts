import { memoryJobDriver, type MemoryJobDriver } from '../src/driver/memory';
import { jobScheduler, type JobScheduler } from '../src/scheduler/job-scheduler';
import { memoryLeaseLeader } from '../src/scheduler/memory-lease-leader';
import { memorySchedulerState } from '../src/scheduler/memory-scheduler-state';
import type { JobSchedulerOptions } from '../src/scheduler/scheduler-options';
import type { SchedulerState } from '../src/scheduler/scheduler-state';
import type { Clock } from '../src/util/clock';
import { recordingLogger, type RecordingLogger } from '../src/util/logger';

/** What a spec passes to {@link SchedulerRig.start}: the tasks, and any option it sets itself. */
export type RigStartOptions = Pick<JobSchedulerOptions, 'tasks'> &
  Partial<Omit<JobSchedulerOptions, 'driver' | 'clock' | 'tasks'>>;

/** One scheduler's surroundings on the memory driver: its clock, driver, logger and watermark state. */
export interface SchedulerRig<C extends Clock> {
  readonly clock: C;
  readonly driver: MemoryJobDriver;
  readonly logger: RecordingLogger;
  /** The memory state; a spec that fails some of its calls wraps it and passes the wrapper to `start`. */
  readonly state: SchedulerState;
  /**
   * Builds and starts a scheduler over the rig: the rig's state and logger and an uncontested memory lease unless
   * `options` names others.
   */
  readonly start: (options: RigStartOptions) => JobScheduler;
}

/** The memory driver, a recording logger and the memory scheduler state, all on `clock`. */
export function schedulerRig<C extends Clock>(clock: C): SchedulerRig<C> {
  const driver = memoryJobDriver({ clock });
  const logger = recordingLogger();
  const state = memorySchedulerState({ driver, clock });
  return {
    clock,
    driver,
    logger,
    state,
    start: (options) => {
      const scheduler = jobScheduler({
        driver,
        clock,
        logger,
        state,
        leader: memoryLeaseLeader(),
        ...options,
      });
      scheduler.start();
      return scheduler;
    },
  };
}
