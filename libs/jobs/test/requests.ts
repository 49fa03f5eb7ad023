/**
 * The specs' enqueue request builder is the public one of `@ultimat3/jobs/testing` (name `test.job`, queue `test-q`,
 * input `{}`, fresh ids, due now; overrides win); re-exported here so specs keep importing it from one place.
 */
export { enqueueRequest } from '../src/testing/enqueue-request';
