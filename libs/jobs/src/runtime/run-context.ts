import { AsyncLocalStorage } from 'node:async_hooks';
import type { JobRunContext, StepApi } from '../declare/run-args';
import type { JobsLogger } from '../util/logger';

/** What is ambient while a job body runs: its context, its steps, and any cross-tenant scope it opened. */
export interface RunScope {
  /** The running job's context. */
  readonly ctx: JobRunContext;
  /** The running job's durable steps. */
  readonly step: StepApi;
  /** The reason of the innermost `crossTenant()` around the current code, if any. */
  readonly crossTenant?: string;
  /** Where a crossing inside `crossTenant()` is logged (`jobs.tenant.crossed`); none, and it is not. */
  readonly logger?: JobsLogger;
}

/**
 * The run's AsyncLocalStorage. It holds nothing outside a run: it is how a `@Step` method and the app's data layer
 * find the run they are called from, without a parameter threaded through every call.
 */
const storage = new AsyncLocalStorage<RunScope>();

/** Runs `fn` inside `scope`. */
export function withRunScope<T>(scope: RunScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** The run the current code executes in, or undefined outside a job body. */
export function currentRun(): RunScope | undefined {
  return storage.getStore();
}
