/** The metadata key `@Job(handle)` writes on a provider method: the handle it binds. */
export const JOB_METADATA = '@ultimat3/jobs:job';

/** The metadata key `@Task(options)` writes on a provider method: its task handle and instance binding. */
export const TASK_METADATA = '@ultimat3/jobs:task';

/** The provider token of the module's checked config, with its driver open (an async provider: `'postgres'` migrates). */
export const JOBS_CONFIG = '@ultimat3/jobs:config';
