import type { EnqueueRequest } from '../driver/job-driver';
import { errorCodeOf } from '../errors/jobs-error';
import { uuidv7 } from '../util/ids';
import { assertEnqueueRequest, assertEnqueueRequests, enqueueRequestFault } from './request';
import { enqueueRequest } from '../../test/requests';

const request = (over: Partial<EnqueueRequest> = {}): EnqueueRequest =>
  enqueueRequest({
    id: uuidv7(),
    name: 'report.build',
    queue: 'default',
    input: { n: 1 },
    idempotencyKey: uuidv7(),
    runAt: Date.UTC(2026, 0, 1),
    ...over,
  });

/** What assertEnqueueRequests throws for `requests`: its code and message, or undefined when it passes. */
function refusal(
  requests: readonly EnqueueRequest[],
): { code: string; message: string } | undefined {
  try {
    assertEnqueueRequests(requests);
    return undefined;
  } catch (error) {
    return { code: errorCodeOf(error) ?? 'none', message: (error as Error).message };
  }
}

/** What checking each request on its own, in order, throws first: the answer the batch check must give. */
function oneByOne(
  requests: readonly EnqueueRequest[],
): { code: string; message: string } | undefined {
  try {
    requests.forEach((r, i) => assertEnqueueRequest(r, i));
    return undefined;
  } catch (error) {
    return { code: errorCodeOf(error) ?? 'none', message: (error as Error).message };
  }
}

describe('assertEnqueueRequests (the value contract of a batch)', () => {
  it('passes a batch sharing its name, queue, due time and nulls, as checking each request would', () => {
    const shared = { name: 'a.b', queue: 'q', runAt: Date.UTC(2026, 0, 1) };
    const batch = Array.from({ length: 50 }, () => request(shared));
    expect(refusal(batch)).toBeUndefined();
    expect(oneByOne(batch)).toBeUndefined();
  });

  it('names the first request and field broken, as checking each request in order would', () => {
    const input = { n: 1 };
    const cases: EnqueueRequest[][] = [
      // a value that changes mid-batch to a bad one
      [request(), request(), request({ priority: 1.5 })],
      // the same bad value in every request: refused at the first
      [request({ queue: '' }), request({ queue: '' })],
      // a shared input object, bad from the start
      [request({ input: { n: Number.NaN } }), request()],
      // a fault after a field that repeats the previous request's value
      [request({ input }), request({ input, runId: 'NOT-A-UUID' })],
      // a repeated id is a valid id (the driver answers repeats); a bad one later is still found
      [
        request({ id: '0190a0b0-0000-7000-8000-000000000001' }),
        request({ id: '0190a0b0-0000-7000-8000-000000000001', maxAttempts: 0 }),
      ],
      // not an object at all
      [request(), null as unknown as EnqueueRequest],
    ];
    for (const batch of cases) {
      const found = refusal(batch);
      expect(found?.code).toBe('X_VALUE_INVALID');
      expect(found).toEqual(oneByOne(batch));
    }
    expect(refusal(cases[0] as EnqueueRequest[])?.message).toContain('requests[2].priority');
    expect(refusal(cases[3] as EnqueueRequest[])?.message).toContain('requests[1].runId');
  });

  it('checks every field, in the order a reader finds them, in a batch as one by one', () => {
    const bad: Partial<Record<keyof EnqueueRequest, unknown>> = {
      id: 'NOT-A-UUID',
      runId: '0190A0B0-0000-7000-8000-000000000001',
      name: '',
      queue: 'q'.repeat(64),
      idempotencyKey: null,
      tenantId: 'org\u0000',
      enqueuedBy: 'user\ud800',
      runAt: 1.5,
      maxAttempts: 0,
      priority: 1.5,
      onConflict: 'replace',
      concurrencyKey: 'key\u0000',
      traceparent: '\udc00',
      crossTenantReason: 'reason\u0000',
      input: { n: Number.NaN },
    };
    const fields = Object.keys(bad) as (keyof EnqueueRequest)[];
    for (const field of fields) {
      const broken = request({ [field]: bad[field] });
      expect(enqueueRequestFault(broken)?.field).toBe(field);
      const batch = [request(), broken, request({ [field]: bad[field], priority: 1.5 })];
      expect(refusal(batch)).toEqual(oneByOne(batch));
      expect(refusal(batch)?.message).toContain(`requests[1].${field}`);
    }
    // two broken fields: the one a reader finds first is named
    for (let i = 0; i + 1 < fields.length; i++) {
      const [first, second] = [fields[i], fields[i + 1]] as [
        keyof EnqueueRequest,
        keyof EnqueueRequest,
      ];
      const twice = request({ [second]: bad[second], [first]: bad[first] });
      expect(enqueueRequestFault(twice)?.field).toBe(first);
    }
  });

  it('re-checks a value equal in content but not the same (a NaN never equals itself)', () => {
    const batch = [request({ runAt: Number.NaN }), request({ runAt: Number.NaN })];
    expect(enqueueRequestFault(batch[0] as EnqueueRequest)?.field).toBe('runAt');
    expect(refusal(batch)?.message).toContain('requests[0].runAt');
  });
});
