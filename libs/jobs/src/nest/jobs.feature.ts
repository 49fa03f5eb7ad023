import type { AnyJobHandle } from '../declare/handle';

/** The handles one `JobsModule.forFeature()` registered; the explorer collects every instance into the registry. */
export class JobsFeature {
  constructor(readonly handles: readonly AnyJobHandle[]) {}
}

/** What `JobsModule.forFeature()` takes. */
export interface JobsFeatureOptions {
  /**
   * Module namespaces (`import * as onboardingJobs from './onboarding.jobs'`), never lists of names: each unnamed job
   * handle a namespace exports takes its export name as its durable name.
   */
  readonly jobs: readonly Readonly<Record<string, unknown>>[];
}
