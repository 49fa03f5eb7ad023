import type { AnyJobHandle } from '../declare/handle';
import type { TaskHandle } from '../declare/task';

/**
 * The handles one `JobsModule.forFeature()` registered; the explorer collects every instance into the job and task
 * registries.
 */
export class JobsFeature {
  constructor(
    readonly handles: readonly AnyJobHandle[],
    readonly tasks: readonly TaskHandle[] = [],
  ) {}
}

/** A module namespace (`import * as fleetJobs from './fleet.jobs'`): its exports, by name. */
export type JobsNamespace = Readonly<Record<string, unknown>>;

/** What `JobsModule.forFeature()` takes. */
export interface JobsFeatureOptions {
  /**
   * Module namespaces (`import * as onboardingJobs from './onboarding.jobs'`), never lists of names: each unnamed job
   * handle a namespace exports takes its export name as its durable name.
   */
  readonly jobs?: readonly JobsNamespace[];
  /**
   * Module namespaces of `task()` handles (`import * as fleetTasks from './fleet.tasks'`): each unnamed task takes its
   * export name as the durable key of its watermark.
   */
  readonly tasks?: readonly JobsNamespace[];
}
