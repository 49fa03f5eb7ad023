/** The resolved `JobsHealthOptions` (`ResolvedJobsHealthOptions`). */
export const JOBS_HEALTH_OPTIONS = Symbol('@ultimat3/jobs:health-options');
/** Terminus' `HealthIndicatorService`, provided under a token of ours so no signature names the optional peer. */
export const JOBS_HEALTH_INDICATOR_SERVICE = Symbol('@ultimat3/jobs:health-indicator-service');
/** Terminus' `HealthCheckService`, the same way. */
export const JOBS_HEALTH_CHECK_SERVICE = Symbol('@ultimat3/jobs:health-check-service');
