import type { JobIntrospection } from '../driver/introspection';
import type { JobDriver } from '../driver/job-driver';
import { NotImplementedError } from '../errors/runtime-errors';
import type { SchedulerState } from '../scheduler/scheduler-state';

/**
 * The driver's operator surface, or `X_NOT_IMPLEMENTED` naming what asked for it: a hand-rolled driver with no
 * `introspect` answers every operator function the same way.
 */
export function introspectionOf(driver: JobDriver, what: string): JobIntrospection {
  const introspect = driver.introspect;
  if (introspect === undefined) throw new NotImplementedError(`${what} (driver.introspect)`);
  return introspect;
}

/**
 * The driver's durable scheduler state (task pauses and fires) when it carries one — the PostgreSQL and Redis
 * backends do, read structurally as `SchedulerHost` reads it — else `X_NOT_IMPLEMENTED` naming what asked.
 */
export function schedulerStateOf(driver: JobDriver, what: string): SchedulerState {
  const state = (driver as { readonly schedulerState?: SchedulerState }).schedulerState;
  if (state === undefined || typeof state.pausedTasks !== 'function') {
    throw new NotImplementedError(`${what} (the driver keeps no scheduler state)`);
  }
  return state;
}
