/** The metadata key `@Job(handle)` writes on a provider method: the handle it binds. */
export const JOB_METADATA = '@ultimat3/jobs:job';
