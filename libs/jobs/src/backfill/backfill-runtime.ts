import { hasJobsFacade, jobsFacade } from '../declare/ambient';
import { currentRun } from '../runtime/run-context';
import { silentLogger, type JobsLogger } from '../util/logger';
import type { BackfillLedger } from './ledger';

/**
 * What a pass runs against besides its declaration: where it records itself, which deploy it runs in, and what the
 * app calls its build. A backend declares the ledger as a capability; a runtime with none runs the pass anyway, with
 * no bookkeeping (the same degradation an operator surface has on a driver without introspection).
 */
export interface BackfillRuntime {
  /** The `x_backfills` ledger; absent, the pass keeps no ledger row (and nothing blocks a second pass). */
  readonly ledger?: BackfillLedger;
  /** The environment this process serves (`'production'`, `'staging'`), checked against `environments`. */
  readonly environment?: string;
  /** The app's version, stamped on the ledger row of each pass it starts. */
  readonly appVersion?: string | null;
  /** Where `jobs.backfill.*` events go (default the run's own logger). */
  readonly logger?: JobsLogger;
}

/** A {@link BackfillRuntime} with every field decided. */
export interface ResolvedBackfillRuntime {
  /** The `x_backfills` ledger, or undefined: no ledger row is kept. */
  readonly ledger: BackfillLedger | undefined;
  /** The environment this process serves (default `JOBS_ENVIRONMENT`, else `NODE_ENV`, else `'development'`). */
  readonly environment: string;
  /** The app's version stamped on the ledger row, or null. */
  readonly appVersion: string | null;
  /** Where `jobs.backfill.*` events go (default the run's logger, else silent). */
  readonly logger: JobsLogger;
}

/**
 * The environment a process serves when nothing names one: `JOBS_ENVIRONMENT`, else `NODE_ENV`, else
 * `'development'` — read at the pass, never captured at import.
 */
export function defaultBackfillEnvironment(env: NodeJS.ProcessEnv = process.env): string {
  return env.JOBS_ENVIRONMENT || env.NODE_ENV || 'development';
}

/**
 * The runtime one pass runs against: the declaration's own (`runtime:`, for tests and scripts), else the one the
 * installed jobs facade carries (`JobsFacade.backfills`, what `JobsModule` installs from its backend), else none.
 */
export function resolveBackfillRuntime(
  own: BackfillRuntime | (() => BackfillRuntime) | undefined,
): ResolvedBackfillRuntime {
  const declared = typeof own === 'function' ? own() : own;
  const ambient = hasJobsFacade() ? jobsFacade().backfills : undefined;
  const runtime: BackfillRuntime = declared ?? ambient ?? {};
  return {
    ledger: runtime.ledger,
    environment: runtime.environment ?? defaultBackfillEnvironment(),
    appVersion: runtime.appVersion ?? null,
    logger: runtime.logger ?? currentRun()?.logger ?? silentLogger,
  };
}
