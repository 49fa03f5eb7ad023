import type { JobIntrospection, JobListFilter } from '../driver/introspection';
import { FINISHED_STATES, LIVE_STATES } from '../driver/job-row';
import { ValueInvalidError } from '../errors/value-errors';
import { MAX_JOB_NAME_LENGTH, MAX_QUEUE_NAME_LENGTH, MAX_TENANT_LENGTH } from './bounds';
import { storedStepNameProblem } from './request';
import { enumProblem, nameProblem } from './scalars';
import { boundedText, describeValue, identifierProblem } from './text';

const STATES: readonly string[] = [...LIVE_STATES, ...FINISHED_STATES];

const refuse = (field: string, reason: string | undefined): void => {
  if (reason !== undefined) throw new ValueInvalidError(field, reason);
};

/** Refuses a filter field that no row could match because no row can hold it (`state: 'DEAD'`, a NUL in a queue). */
function checkFilter(filter: JobListFilter | undefined): void {
  if (filter === undefined) return;
  if (typeof filter !== 'object' || filter === null) {
    throw new ValueInvalidError('list(filter)', `must be an object (got ${describeValue(filter)})`);
  }
  const { queue, name, state, tenantId } = filter;
  if (queue !== undefined) refuse('list(filter).queue', nameProblem(queue, MAX_QUEUE_NAME_LENGTH));
  if (name !== undefined) refuse('list(filter).name', nameProblem(name, MAX_JOB_NAME_LENGTH));
  if (state !== undefined) refuse('list(filter).state', enumProblem(state, STATES));
  if (tenantId !== undefined) {
    refuse('list(filter).tenantId', identifierProblem(tenantId, MAX_TENANT_LENGTH));
  }
}

/** Runs `check` and answers a rejection rather than a synchronous throw, as every driver operation does. */
function checked<T>(check: () => void, run: () => Promise<T>): Promise<T> {
  try {
    check();
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return run();
}

/**
 * The operator surface with its inputs checked against the value contract before `inner` sees them: list filters
 * (`state` one of the eight states, queue and job names as declared, a tenant as stored), queue names given to
 * pause and resume, a requeue's `fromStep`; each fault is `X_VALUE_INVALID` naming the argument. A cancel reason is
 * free text: sanitised and bounded, never refused unless it is not a string. Every driver wraps its surface in it, so
 * they answer alike.
 */
export function checkedIntrospection(inner: JobIntrospection): JobIntrospection {
  const queueArg = (call: string, queue: unknown) => () =>
    refuse(`${call}(queue)`, nameProblem(queue, MAX_QUEUE_NAME_LENGTH));
  return {
    // what takes no value from the caller passes straight through, whatever the surface grows
    ...inner,
    list: (filter) =>
      checked(
        () => checkFilter(filter),
        () => inner.list(filter),
      ),
    cancel(id, reason) {
      return checked(
        () => {
          if (reason !== undefined && typeof reason !== 'string') {
            throw new ValueInvalidError(
              'cancel(reason)',
              `must be a string (got ${describeValue(reason)})`,
            );
          }
        },
        () => inner.cancel(id, reason === undefined ? undefined : boundedText(reason)),
      );
    },
    requeue(id, options) {
      const fromStep = options?.fromStep;
      return checked(
        () => {
          if (fromStep !== undefined) refuse('requeue(fromStep)', storedStepNameProblem(fromStep));
        },
        () => inner.requeue(id, options),
      );
    },
    pauseQueue: (queue) => checked(queueArg('pauseQueue', queue), () => inner.pauseQueue(queue)),
    resumeQueue: (queue) => checked(queueArg('resumeQueue', queue), () => inner.resumeQueue(queue)),
  };
}
