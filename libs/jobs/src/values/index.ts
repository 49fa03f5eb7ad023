export * from './bounds';
export { assertEventFind, assertEventPublish, eventNameProblem, eventPublishFault } from './event';
export { jsonProblem } from './json-value';
export { assertProgress, MAX_PROGRESS_COUNT, storableProgress } from './progress';
export { boundedText, identifierProblem, loneSurrogateAt, wellFormed } from './text';
export { enumProblem, integerProblem, nameProblem, timeProblem, uuidProblem } from './scalars';
export {
  assertEnqueueRequest,
  assertEnqueueRequests,
  assertStepRecord,
  enqueueRequestFault,
  type ValueFault,
} from './request';
export { checkedIntrospection } from './operator';
export { inputJsonOf } from './checked-input';
export { storableDuration, storableNack } from './settle';
