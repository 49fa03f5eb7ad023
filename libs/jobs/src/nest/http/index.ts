export { JobsErrorFilter } from './jobs-error.filter';
export { jobsErrorBody, type JobsErrorBody } from './jobs-error.body';
export { JOBS_ERROR_HTTP_STATUS, jobsErrorHttpStatus } from './jobs-error.status';
