import type { EnqueueRequest, StepRecord } from '../driver/job-driver';
import { ValueInvalidError } from '../errors/value-errors';
import {
  MAX_ACTOR_LENGTH,
  MAX_JOB_NAME_LENGTH,
  MAX_QUEUE_NAME_LENGTH,
  MAX_ATTEMPTS,
  MAX_FREE_TEXT_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_PRIORITY,
  MAX_ROW_CONCURRENCY_KEY_LENGTH,
  MAX_STEP_NAME_LENGTH,
  MAX_TENANT_LENGTH,
  MAX_TRACEPARENT_LENGTH,
  MIN_PRIORITY,
} from './bounds';
import { checkedInputJson, hasMintedIds } from './checked-input';
import { jsonProblem } from './json-value';
import { enumProblem, integerProblem, timeProblem, uuidProblem } from './scalars';
import { identifierProblem } from './text';

/** One broken rule: the field, and why. */
export interface ValueFault {
  /** The field that broke the rule (`queue`, `tenantId`, `input`, …). */
  readonly field: string;
  /** Why, as a phrase that follows the field's name (`must be a string (got null)`). */
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

const ON_CONFLICT: readonly string[] = ['dedupe', 'error'];

// A driver stores any well-formed name exactly; the declaration's stricter rule (letters, digits, `. _ : -`) is core's,
// and the operator surface's.
const nameRule = (v: unknown): string | undefined => identifierProblem(v, MAX_JOB_NAME_LENGTH);
const queueRule = (v: unknown): string | undefined => identifierProblem(v, MAX_QUEUE_NAME_LENGTH);
const keyRule = (v: unknown): string | undefined =>
  v === null ? 'must be a string (got null)' : storable(v, MAX_IDEMPOTENCY_KEY_LENGTH);
// '' is keyed as no tenant, the same as null (both drivers key a live row on the tenant or '')
const tenantRule = (v: unknown): string | undefined => storable(v, MAX_TENANT_LENGTH);
const actorRule = (v: unknown): string | undefined => storable(v, MAX_ACTOR_LENGTH);
const attemptsRule = (v: unknown): string | undefined => integerProblem(v, 1, MAX_ATTEMPTS);
const priorityRule = (v: unknown): string | undefined =>
  integerProblem(v, MIN_PRIORITY, MAX_PRIORITY);
const conflictRule = (v: unknown): string | undefined => enumProblem(v, ON_CONFLICT);
const concurrencyRule = (v: unknown): string | undefined =>
  storable(v, MAX_ROW_CONCURRENCY_KEY_LENGTH);
const traceRule = (v: unknown): string | undefined => storable(v, MAX_TRACEPARENT_LENGTH);
// optional: the common path writes it bounded (`crossTenant()`'s reason); a hand-built one is held to the same text
const crossingRule = (v: unknown): string | undefined =>
  v === undefined ? undefined : storable(v, MAX_FREE_TEXT_LENGTH);

/** Why a request's input is not storable JSON, or undefined; an input the common path checked is not walked again. */
const inputProblem = (request: EnqueueRequest): string | undefined =>
  checkedInputJson(request) === undefined ? jsonProblem(request.input) : undefined;

/** `field` broken for `reason`, or undefined when it has none. */
const fault = (field: string, reason: string | undefined): ValueFault | undefined =>
  reason === undefined ? undefined : { field, reason };

/**
 * The first rule `r` breaks, checking its fields in the order a reader finds them (its input last), or undefined. A
 * field holding the very value (`===`) `p` — a request that broke no rule — held there passed that rule already (each
 * rule is a pure function of the value), so it is not checked again; nor are the ids and the input the common path
 * vouches for (see `checked-input.ts`). Written out field by field, not as a loop over a
 * table of field names: a property read by a computed name was most of a 1,000-row batch's check.
 */
function requestFault(r: EnqueueRequest, p: EnqueueRequest | undefined): ValueFault | undefined {
  const q = p !== undefined; // a previous request to compare with
  const minted = hasMintedIds(r); // ids the common path minted: canonical by construction
  return (
    (minted || (q && r.id === p.id) ? undefined : fault('id', uuidProblem(r.id))) ??
    (minted || (q && r.runId === p.runId) ? undefined : fault('runId', uuidProblem(r.runId))) ??
    (q && r.name === p.name ? undefined : fault('name', nameRule(r.name))) ??
    (q && r.queue === p.queue ? undefined : fault('queue', queueRule(r.queue))) ??
    (q && r.idempotencyKey === p.idempotencyKey
      ? undefined
      : fault('idempotencyKey', keyRule(r.idempotencyKey))) ??
    (q && r.tenantId === p.tenantId ? undefined : fault('tenantId', tenantRule(r.tenantId))) ??
    (q && r.enqueuedBy === p.enqueuedBy
      ? undefined
      : fault('enqueuedBy', actorRule(r.enqueuedBy))) ??
    (q && r.runAt === p.runAt ? undefined : fault('runAt', timeProblem(r.runAt))) ??
    (q && r.maxAttempts === p.maxAttempts
      ? undefined
      : fault('maxAttempts', attemptsRule(r.maxAttempts))) ??
    (q && r.priority === p.priority ? undefined : fault('priority', priorityRule(r.priority))) ??
    (q && r.onConflict === p.onConflict
      ? undefined
      : fault('onConflict', conflictRule(r.onConflict))) ??
    (q && r.concurrencyKey === p.concurrencyKey
      ? undefined
      : fault('concurrencyKey', concurrencyRule(r.concurrencyKey))) ??
    (q && r.traceparent === p.traceparent
      ? undefined
      : fault('traceparent', traceRule(r.traceparent))) ??
    (q && r.crossTenantReason === p.crossTenantReason
      ? undefined
      : fault('crossTenantReason', crossingRule(r.crossTenantReason))) ??
    (q && r.input === p.input ? undefined : fault('input', inputProblem(r)))
  );
}

/** The first rule `request` breaks, or undefined when every driver can store it exactly. */
export function enqueueRequestFault(request: EnqueueRequest): ValueFault | undefined {
  if (typeof request !== 'object' || request === null) {
    return { field: 'request', reason: 'must be an object' };
  }
  return requestFault(request, undefined);
}

/**
 * Refuses, with `X_VALUE_INVALID` naming the field, a request no driver can store exactly. Every driver calls it before
 * it writes, so a request built by hand (or staged by an older build) gets the same answer on every driver, never a
 * database's raw error or a silent merge. `index` names the request's place in a batch.
 */
export function assertEnqueueRequest(request: EnqueueRequest, index?: number): void {
  const found = enqueueRequestFault(request);
  if (found === undefined) return;
  const at = index === undefined ? 'request' : `requests[${index}]`;
  throw new ValueInvalidError(`${at}.${found.field}`, found.reason);
}

/**
 * {@link assertEnqueueRequest} for each request of a batch, with the same answer: the first request breaking a rule,
 * and its first broken rule. A field holding the very value the previous request held there is not checked again
 * (see `requestFault`): a batch's name, queue, tenant, due time, attempts, priority and nulls are checked once, not
 * once a row.
 */
export function assertEnqueueRequests(requests: readonly EnqueueRequest[]): void {
  let previous: EnqueueRequest | undefined;
  for (let index = 0; index < requests.length; index++) {
    const request = requests[index] as EnqueueRequest;
    if (previous === undefined || typeof request !== 'object' || request === null) {
      assertEnqueueRequest(request, index);
    } else {
      const found = requestFault(request, previous);
      if (found !== undefined)
        throw new ValueInvalidError(`requests[${index}].${found.field}`, found.reason);
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
