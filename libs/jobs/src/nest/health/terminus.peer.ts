import { OptionalPeerMissingError } from '../../errors/declaration-errors';

/** The status of one Terminus indicator. */
export type JobsHealthStatus = 'up' | 'down' | 'degraded';

/**
 * What an indicator answers: Terminus' `HealthIndicatorResult`, written structurally so the package's types compile
 * in an app without `@nestjs/terminus`.
 */
export type JobsHealthResult = Record<
  string,
  { readonly status: JobsHealthStatus } & Record<string, unknown>
>;

/** The part of one `HealthIndicatorService.check(key)` session the indicator uses. */
export interface HealthIndicatorSessionLike {
  up(data: Record<string, unknown>): JobsHealthResult;
  down(data: Record<string, unknown>): JobsHealthResult;
  degraded(data: Record<string, unknown>): JobsHealthResult;
}

/** The part of Terminus' `HealthIndicatorService` (11+) the indicator uses. */
export interface HealthIndicatorServiceLike {
  check(key: string): HealthIndicatorSessionLike;
}

/** The part of Terminus' `HealthCheckService` the mounted controller uses. */
export interface HealthCheckServiceLike {
  check(indicators: (() => Promise<JobsHealthResult>)[]): Promise<unknown>;
}

/** The classes of `@nestjs/terminus` the health module registers, read from the lazily loaded package. */
export interface TerminusPackage {
  readonly TerminusModule: new () => unknown;
  readonly HealthIndicatorService: abstract new (...args: never[]) => HealthIndicatorServiceLike;
  readonly HealthCheckService: abstract new (...args: never[]) => HealthCheckServiceLike;
}

export const TERMINUS_PACKAGE = '@nestjs/terminus';

/**
 * Loads `@nestjs/terminus` when an app asks for health (`JobsHealthModule.forRoot()`), never at module load: an app
 * without it imports the package and runs. Missing, it is `X_PEER_MISSING` with the install line.
 */
export function loadTerminus(
  load: () => unknown = () =>
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer, loaded only when asked for
    require(TERMINUS_PACKAGE) as unknown,
): TerminusPackage {
  try {
    return load() as TerminusPackage;
  } catch (cause) {
    throw new OptionalPeerMissingError('JobsHealthModule', [TERMINUS_PACKAGE], cause);
  }
}
