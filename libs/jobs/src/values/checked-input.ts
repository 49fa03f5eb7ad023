import type { EnqueueRequest } from '../driver/job-driver';
import type { JsonValue } from '../util/json';

/**
 * A request the common enqueue path built (`declare/enqueue.ts`): the fields of an {@link EnqueueRequest}, and the
 * JSON text of its input, which that path checked against the value contract (`jsonProblem`) and encoded once. A
 * driver's request check then does not walk the input again, and the driver writes this text instead of encoding the
 * input again (see {@link inputJsonOf}).
 *
 * The text is a private field: a copy (a spread, a JSON round trip, a request staged in an outbox) does not carry it
 * and is checked in full, and no request built elsewhere can claim one. It is trusted only while the request holds the
 * very input object it was made for, so a request whose input was swapped is checked and encoded afresh. Every other
 * field is still checked by the driver.
 */
class CheckedRequest implements EnqueueRequest {
  readonly id: string;
  readonly runId: string;
  readonly name: string;
  readonly queue: string;
  readonly input: JsonValue;
  readonly idempotencyKey: string;
  readonly tenantId: string | null;
  readonly enqueuedBy: string | null;
  readonly runAt: number;
  readonly maxAttempts: number;
  readonly priority: number;
  readonly onConflict: 'dedupe' | 'error';
  readonly concurrencyKey: string | null;
  readonly traceparent: string | null;
  readonly crossTenantReason: string | null;
  readonly #input: JsonValue;
  readonly #json: string;

  constructor(fields: EnqueueRequest, json: string) {
    this.id = fields.id;
    this.runId = fields.runId;
    this.name = fields.name;
    this.queue = fields.queue;
    this.input = fields.input;
    this.idempotencyKey = fields.idempotencyKey;
    this.tenantId = fields.tenantId;
    this.enqueuedBy = fields.enqueuedBy;
    this.runAt = fields.runAt;
    this.maxAttempts = fields.maxAttempts;
    this.priority = fields.priority;
    this.onConflict = fields.onConflict;
    this.concurrencyKey = fields.concurrencyKey;
    this.traceparent = fields.traceparent;
    this.crossTenantReason = fields.crossTenantReason ?? null;
    this.#input = fields.input;
    this.#json = json;
  }

  /** The checked text of `request`'s input, when it is such a request and still holds that input; else undefined. */
  static jsonOf(request: EnqueueRequest): string | undefined {
    return #json in request && request.input === request.#input ? request.#json : undefined;
  }
}

/**
 * `fields` as a request carrying `json`, its input's JSON text. For the common enqueue path only, once it has checked
 * the input (`jsonProblem`) and encoded it as `json`: a driver takes the text as checked.
 */
export function withCheckedInput(fields: EnqueueRequest, json: string): EnqueueRequest {
  return new CheckedRequest(fields, json);
}

/** The JSON text {@link withCheckedInput} gave `request` for the input it holds now, or undefined. */
export const checkedInputJson = (request: EnqueueRequest): string | undefined =>
  CheckedRequest.jsonOf(request);

/**
 * The JSON text a driver stores for a request's input: the text the common path checked and encoded when it built
 * the request, else `JSON.stringify` of the input now (undefined for an input with no JSON text, which the value
 * contract refuses).
 */
export function inputJsonOf(request: EnqueueRequest): string | undefined {
  return CheckedRequest.jsonOf(request) ?? (JSON.stringify(request.input) as string | undefined);
}
