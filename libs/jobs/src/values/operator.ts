import { assertBulkState, type BulkOperation } from '../driver/bulk-filter';
import type { JobBulkFilter, JobIntrospection, JobListFilter } from '../driver/introspection';
import { FINISHED_STATES, LIVE_STATES } from '../driver/job-row';
import { ValueInvalidError } from '../errors/value-errors';
import { MAX_JOB_NAME_LENGTH, MAX_QUEUE_NAME_LENGTH, MAX_TENANT_LENGTH } from './bounds';
import { storedStepNameProblem } from './request';
import { enumProblem, nameProblem, timeProblem } from './scalars';
import { boundedText, describeValue, identifierProblem } from './text';

const STATES: readonly string[] = [...LIVE_STATES, ...FINISHED_STATES];

const refuse = (field: string, reason: string | undefined): void => {
  if (reason !== undefined) throw new ValueInvalidError(field, reason);
};

/** A lower-case prefix of a canonical UUID: hex digits, dashes exactly where a UUID has them. */
const ID_SHAPE = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';

/** Why `value` cannot begin any stored id, or undefined. */
export function idPrefixProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > ID_SHAPE.length) {
    return `must be 1 to 36 characters of an id (got ${describeValue(value)})`;
  }
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    const ok = ID_SHAPE[i] === '-' ? c === '-' : /[0-9a-f]/.test(c);
    if (!ok)
      return 'must be the start of a lower-case UUID (hex digits, dashes where a UUID has them)';
  }
  return undefined;
}

/** A canonical UUID in either case. */
const ANY_CASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A job id as an operator gave it, in the case every backend stores it: a UUID is read in either case (RFC 9562), and
 * every backend writes its ids in lower case — PostgreSQL's `uuid` compared an upper-case one equal where the memory
 * and Redis drivers, which key rows by the text, found no such row. Anything else is answered as given (its backend's
 * lookup finds nothing, as for any unknown id).
 */
export function operatorJobId(id: string): string {
  return typeof id === 'string' && ANY_CASE_UUID.test(id) ? id.toLowerCase() : id;
}

/** Refuses the fields a list and a bulk filter share (queue, name, state, tenant) that no row could hold. */
function checkRowFields(call: string, filter: JobListFilter | JobBulkFilter): void {
  const { queue, name, state, tenantId } = filter;
  if (queue !== undefined) refuse(`${call}.queue`, nameProblem(queue, MAX_QUEUE_NAME_LENGTH));
  if (name !== undefined) refuse(`${call}.name`, nameProblem(name, MAX_JOB_NAME_LENGTH));
  if (state !== undefined) refuse(`${call}.state`, enumProblem(state, STATES));
  if (tenantId !== undefined) {
    refuse(`${call}.tenantId`, identifierProblem(tenantId, MAX_TENANT_LENGTH));
  }
}

/** Refuses a filter field that no row could match because no row can hold it (`state: 'DEAD'`, a NUL in a queue). */
function checkFilter(filter: JobListFilter | undefined): void {
  if (filter === undefined) return;
  if (typeof filter !== 'object' || filter === null) {
    throw new ValueInvalidError('list(filter)', `must be an object (got ${describeValue(filter)})`);
  }
  checkRowFields('list(filter)', filter);
  const { idPrefix, createdFrom, createdTo } = filter;
  if (idPrefix !== undefined) refuse('list(filter).idPrefix', idPrefixProblem(idPrefix));
  if (createdFrom !== undefined) refuse('list(filter).createdFrom', timeProblem(createdFrom));
  if (createdTo !== undefined) refuse('list(filter).createdTo', timeProblem(createdTo));
  if (createdFrom !== undefined && createdTo !== undefined && createdFrom > createdTo) {
    throw new ValueInvalidError(
      'list(filter).createdFrom',
      `is after createdTo (${createdFrom} > ${createdTo}): the window holds no time`,
    );
  }
}

/** Refuses a queue name no backend could hold, as `pauseQueue(queue)` / `resumeQueue(queue)` do (`X_VALUE_INVALID`). */
export function assertQueueName(call: string, queue: unknown): void {
  refuse(`${call}(queue)`, nameProblem(queue, MAX_QUEUE_NAME_LENGTH));
}

/** Refuses a task name no backend could hold, as `pauseTask(task)` / `resumeTask(task)` do (`X_VALUE_INVALID`). */
export function assertTaskName(call: string, task: unknown): void {
  refuse(`${call}(task)`, nameProblem(task, MAX_JOB_NAME_LENGTH));
}

/** Refuses a bulk filter: an object with a `state`, fields a row could hold, a state the operation moves rows out of. */
function checkBulkFilter(operation: BulkOperation, filter: JobBulkFilter): void {
  const call = `${operation}(filter)`;
  if (typeof filter !== 'object' || filter === null) {
    throw new ValueInvalidError(call, `must be an object (got ${describeValue(filter)})`);
  }
  if (filter.state === undefined) {
    throw new ValueInvalidError(`${call}.state`, 'is required: a bulk operation walks one state');
  }
  checkRowFields(call, filter);
  assertBulkState(operation, filter);
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
 * pause and resume, task names, a requeue's `fromStep`, bulk filters (a state the operation cannot move rows out of
 * is the operation's own code: `X_JOB_NOT_REQUEUEABLE`, `X_JOB_NOT_REMOVABLE`, `X_JOB_NOT_PROMOTABLE`); each fault is `X_VALUE_INVALID` naming the argument. A cancel reason is
 * free text: sanitised and bounded, never refused unless it is not a string. Every driver wraps its surface in it, so
 * they answer alike.
 */
export function checkedIntrospection(inner: JobIntrospection): JobIntrospection {
  const queueArg = (call: string, queue: unknown) => () => assertQueueName(call, queue);
  const taskArg = (call: string, task: unknown) => () => assertTaskName(call, task);
  const bulk =
    <K extends BulkOperation>(operation: K): JobIntrospection[K] =>
    (filter: JobBulkFilter) =>
      checked(
        () => checkBulkFilter(operation, filter),
        () => inner[operation](filter as never),
      );
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
    requeueMany: bulk('requeueMany'),
    removeMany: bulk('removeMany'),
    promoteMany: bulk('promoteMany'),
    pauseTask: (task) => checked(taskArg('pauseTask', task), () => inner.pauseTask(task)),
    resumeTask: (task) => checked(taskArg('resumeTask', task), () => inner.resumeTask(task)),
    recordTaskFire: (fire) =>
      checked(
        () => {
          refuse('recordTaskFire(task)', nameProblem(fire?.task, MAX_JOB_NAME_LENGTH));
          refuse('recordTaskFire(occurrenceMs)', timeProblem(fire.occurrenceMs));
        },
        () => inner.recordTaskFire(fire),
      ),
  };
}
