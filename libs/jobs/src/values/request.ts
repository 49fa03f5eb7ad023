import type { EnqueueRequest, StepRecord } from '../driver/job-driver';
import { ValueInvalidError } from '../errors/value-errors';
import {
  MAX_ACTOR_LENGTH,
  MAX_JOB_NAME_LENGTH,
  MAX_QUEUE_NAME_LENGTH,
  MAX_ATTEMPTS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_PRIORITY,
  MAX_ROW_CONCURRENCY_KEY_LENGTH,
  MAX_STEP_NAME_LENGTH,
  MAX_TENANT_LENGTH,
  MAX_TRACEPARENT_LENGTH,
  MIN_PRIORITY,
} from './bounds';
import { jsonProblem } from './json-value';
import { enumProblem, integerProblem, timeProblem, uuidProblem } from './scalars';
import { identifierProblem } from './text';

/** One broken rule: the field, and why. */
export interface ValueFault {
  readonly field: string;
  readonly reason: string;
}

/**
 * Room a stored step name has beyond {@link MAX_STEP_NAME_LENGTH}: the runtime stores a wait's answer under its name
 * plus a suffix (`#event`).
 */
const STEP_NAME_SUFFIX_ROOM = 16;

/** A string every driver stores exactly ('' included), or null. */
const storable = (value: unknown, max: number): string | undefined =>
  value === null || value === '' ? undefined : identifierProblem(value, max);

/** The checks of one request, in the order a reader finds the fields. */
const REQUEST_RULES: readonly [keyof EnqueueRequest, (value: unknown) => string | undefined][] = [
  ['id', uuidProblem],
  ['runId', uuidProblem],
  // A driver stores any well-formed name exactly; the declaration's stricter rule (letters, digits, `. _ : -`) is
  // core's, and the operator surface's.
  ['name', (v) => identifierProblem(v, MAX_JOB_NAME_LENGTH)],
  ['queue', (v) => identifierProblem(v, MAX_QUEUE_NAME_LENGTH)],
  [
    'idempotencyKey',
    (v) => (v === null ? 'must be a string (got null)' : storable(v, MAX_IDEMPOTENCY_KEY_LENGTH)),
  ],
  // '' is keyed as no tenant, the same as null (both drivers key a live row on the tenant or '')
  ['tenantId', (v) => storable(v, MAX_TENANT_LENGTH)],
  ['enqueuedBy', (v) => storable(v, MAX_ACTOR_LENGTH)],
  ['runAt', timeProblem],
  ['maxAttempts', (v) => integerProblem(v, 1, MAX_ATTEMPTS)],
  ['priority', (v) => integerProblem(v, MIN_PRIORITY, MAX_PRIORITY)],
  ['onConflict', (v) => enumProblem(v, ['dedupe', 'error'])],
  ['concurrencyKey', (v) => storable(v, MAX_ROW_CONCURRENCY_KEY_LENGTH)],
  ['traceparent', (v) => storable(v, MAX_TRACEPARENT_LENGTH)],
  ['input', (v) => jsonProblem(v)],
];

/** The first rule `request` breaks, or undefined when every driver can store it exactly. */
export function enqueueRequestFault(request: EnqueueRequest): ValueFault | undefined {
  if (typeof request !== 'object' || request === null) {
    return { field: 'request', reason: 'must be an object' };
  }
  for (const [field, problem] of REQUEST_RULES) {
    const reason = problem(request[field]);
    if (reason !== undefined) return { field, reason };
  }
  return undefined;
}

/**
 * Refuses, with `X_VALUE_INVALID` naming the field, a request no driver can store exactly. Every driver calls it before
 * it writes, so a request built by hand (or staged by an older build) gets the same answer on every driver, never a
 * database's raw error or a silent merge. `index` names the request's place in a batch.
 */
export function assertEnqueueRequest(request: EnqueueRequest, index?: number): void {
  const fault = enqueueRequestFault(request);
  if (fault === undefined) return;
  const at = index === undefined ? 'request' : `requests[${index}]`;
  throw new ValueInvalidError(`${at}.${fault.field}`, fault.reason);
}

/**
 * {@link assertEnqueueRequest} for each request of a batch, with the same answer: the first request breaking a rule,
 * and its first broken rule. A field holding the very value (`===`) the previous request held there passed that rule
 * already (every rule is a pure function of the value, and the previous request broke none), so it is not checked
 * again: a batch's name, queue, tenant, due time, attempts, priority and nulls are checked once, not once a row.
 */
export function assertEnqueueRequests(requests: readonly EnqueueRequest[]): void {
  let previous: EnqueueRequest | undefined;
  for (let index = 0; index < requests.length; index++) {
    const request = requests[index] as EnqueueRequest;
    if (previous === undefined || typeof request !== 'object' || request === null) {
      assertEnqueueRequest(request, index);
    } else {
      for (const [field, problem] of REQUEST_RULES) {
        const value = request[field];
        if (value === previous[field]) continue;
        const reason = problem(value);
        if (reason !== undefined)
          throw new ValueInvalidError(`requests[${index}].${field}`, reason);
      }
    }
    previous = request;
  }
}

/** Why `name` cannot name a stored step, or undefined. */
export function storedStepNameProblem(name: unknown): string | undefined {
  return identifierProblem(name, MAX_STEP_NAME_LENGTH + STEP_NAME_SUFFIX_ROOM);
}

/** Refuses, with `X_VALUE_INVALID`, a step record no driver can store exactly. Drivers call it before a save. */
export function assertStepRecord(step: StepRecord): void {
  const fault = stepRecordFault(step);
  if (fault !== undefined) throw new ValueInvalidError(`step.${fault.field}`, fault.reason);
}

function stepRecordFault(step: StepRecord): ValueFault | undefined {
  if (typeof step !== 'object' || step === null)
    return { field: 'record', reason: 'must be an object' };
  const rules: [string, string | undefined][] = [
    ['name', storedStepNameProblem(step.name)],
    ['attempt', integerProblem(step.attempt, 1, MAX_ATTEMPTS)],
    ['startedAt', timeProblem(step.startedAt)],
    ['completedAt', timeProblem(step.completedAt)],
    ['output', step.output === undefined ? undefined : jsonProblem(step.output)],
  ];
  for (const [field, reason] of rules) if (reason !== undefined) return { field, reason };
  return undefined;
}
