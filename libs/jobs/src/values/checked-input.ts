import type { EnqueueRequest } from '../driver/job-driver';
import type { JsonValue } from '../util/json';

/**
 * A request the common enqueue path built (`declare/enqueue.ts`): the fields of an {@link EnqueueRequest}, the JSON
 * text of its input, which that path checked against the value contract (`jsonProblem`) and encoded once, and the ids
 * it minted (canonical lower-case UUIDv7s by construction; a `runId` option is checked and lower-cased before). A
 * driver's request check then neither walks the input nor tests the ids again, and the driver writes this text
 * instead of encoding the input again (see {@link inputJsonOf}).
 *
 * What it vouches for is held in private fields: a copy (a spread, a JSON round trip, a request staged in an outbox)
 * does not carry them and is checked in full, and no request built elsewhere can claim them. Each is trusted only while
 * the request still holds that very value (the same input object, the same id strings), so a request whose input or
 * ids were swapped is checked afresh. Every other field is checked by the driver as before.
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
  readonly #id: string;
  readonly #runId: string;

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
    this.#id = fields.id;
    this.#runId = fields.runId;
  }

  /** The checked text of `request`'s input, when it is such a request and still holds that input; else undefined. */
  static jsonOf(request: EnqueueRequest): string | undefined {
    return #json in request && request.input === request.#input ? request.#json : undefined;
  }

  /** Whether `request` is such a request still holding the ids it was built with. */
  static mintedIds(request: EnqueueRequest): boolean {
    return #id in request && request.id === request.#id && request.runId === request.#runId;
  }
}

/**
 * `fields` as a request carrying `json`, its input's JSON text. For the common enqueue path only, once it has checked
 * the input (`jsonProblem`) and encoded it as `json`, and with ids it minted (or checked): a driver takes the text and
 * the ids as checked.
 */
export function withCheckedInput(fields: EnqueueRequest, json: string): EnqueueRequest {
  return new CheckedRequest(fields, json);
}

/** The JSON text {@link withCheckedInput} gave `request` for the input it holds now, or undefined. */
export const checkedInputJson = (request: EnqueueRequest): string | undefined =>
  CheckedRequest.jsonOf(request);

/** Whether `request` holds the ids the common path built it with (see {@link withCheckedInput}). */
export const hasMintedIds = (request: EnqueueRequest): boolean => CheckedRequest.mintedIds(request);

/**
 * The JSON text a driver stores for a request's input: the text the common path checked and encoded when it built
 * the request, else `JSON.stringify` of the input now (undefined for an input with no JSON text, which the value
 * contract refuses).
 */
export function inputJsonOf(request: EnqueueRequest): string | undefined {
  return CheckedRequest.jsonOf(request) ?? (JSON.stringify(request.input) as string | undefined);
}
