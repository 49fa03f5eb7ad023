import { job } from '../declare/job';
import { prepareEnqueue, prepareEnqueueMany } from '../declare/enqueue';
import type { EnqueueRequest } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { checkedInputJson, hasMintedIds, inputJsonOf } from './checked-input';
import { uuidProblem } from './scalars';
import { assertEnqueueRequest, assertEnqueueRequests } from './request';

const NOW = Date.UTC(2026, 0, 1);
const report = job({
  name: 'checked.input',
  input: t.object({ n: t.number, tags: t.array(t.string) }),
  idempotencyKey: ({ n: key }) => `k:${key}`,
  tenant: 'none',
});

/** A request built by the common path, as `handle.enqueue()` builds it. */
const prepared = (key: number, tags: string[] = ['a']): Promise<EnqueueRequest> =>
  prepareEnqueue(report, { n: key, tags }, {}, undefined, NOW);

/** The code and message `assertEnqueueRequest` throws for `request`, or undefined. */
function refusal(request: EnqueueRequest): { code: string; message: string } | undefined {
  try {
    assertEnqueueRequest(request);
    return undefined;
  } catch (error) {
    return { code: errorCodeOf(error) ?? 'none', message: (error as Error).message };
  }
}

describe('a request the common path checked carries its input as JSON text', () => {
  it('carries the text it encoded, which is what JSON gives for the input', async () => {
    const request = await prepared(1, ['x', 'y']);
    expect(checkedInputJson(request)).toBe('{"n":1,"tags":["x","y"]}');
    expect(inputJsonOf(request)).toBe(JSON.stringify(request.input));
    const [first, second] = await prepareEnqueueMany(
      report,
      [
        { n: 2, tags: [] },
        { n: 3, tags: ['z'] },
      ],
      {},
      undefined,
      NOW,
    );
    expect(checkedInputJson(first as EnqueueRequest)).toBe('{"n":2,"tags":[]}');
    expect(checkedInputJson(second as EnqueueRequest)).toBe('{"n":3,"tags":["z"]}');
  });

  it('is not carried by a copy, nor by a request built by hand: those are encoded and checked afresh', async () => {
    const request = await prepared(4);
    const copy: EnqueueRequest = { ...request };
    expect(checkedInputJson(copy)).toBeUndefined();
    expect(inputJsonOf(copy)).toBe('{"n":4,"tags":["a"]}');
    const byHand: EnqueueRequest = { ...request, input: { n: Number.NaN } };
    expect(checkedInputJson(byHand)).toBeUndefined();
    expect(refusal(byHand)).toEqual({
      code: 'X_VALUE_INVALID',
      message: expect.stringContaining('request.input') as string,
    });
    expect(() => assertEnqueueRequests([request, byHand])).toThrow(/requests\[1\]\.input/);
  });

  it('is not trusted once the input it was made for is swapped for another', async () => {
    const request = await prepared(5);
    (request as { input: unknown }).input = { when: new Date(NOW) };
    expect(checkedInputJson(request)).toBeUndefined();
    expect(refusal(request)?.message).toContain('request.input');
  });

  it('vouches only for ids that pass the id rule, and not once they are swapped', async () => {
    const runId = '0190A0B0-0000-7000-8000-0000000000AA';
    const built = [
      await prepared(8),
      await prepareEnqueue(report, { n: 9, tags: [] }, { runId }, undefined, NOW),
      ...(await prepareEnqueueMany(
        report,
        Array.from({ length: 50 }, (_, i) => ({ n: 100 + i, tags: [] })),
        {},
        undefined,
        NOW,
      )),
      ...(await prepareEnqueueMany(report, [{ n: 200, tags: [] }], { runId }, undefined, NOW)),
    ];
    for (const request of built) {
      expect(hasMintedIds(request)).toBe(true);
      expect([uuidProblem(request.id), uuidProblem(request.runId)]).toEqual([undefined, undefined]);
    }
    const swapped = await prepared(10);
    (swapped as { id: unknown }).id = 'NOT-A-UUID';
    expect(hasMintedIds(swapped)).toBe(false);
    expect(refusal(swapped)?.message).toContain('request.id');
    const copy: EnqueueRequest = { ...(await prepared(11)), runId: 'nope' };
    expect(refusal(copy)?.message).toContain('request.runId');
  });

  it('leaves every other field to the driver check, which refuses a bad one as before', async () => {
    const request = await prepared(6);
    (request as { priority: unknown }).priority = 1.5;
    expect(refusal(request)?.message).toContain('request.priority');
  });

  it('is what a driver stores: the input as it was checked, whatever became of the object since', async () => {
    const driver = memoryJobDriver({ clock: frozenClock(NOW) });
    const request = await prepared(7, ['kept']);
    (request.input as { tags: unknown[] }).tags.push(() => 'not JSON');
    await driver.enqueue(request);
    expect((await driver.get(request.id))?.input).toEqual({ n: 7, tags: ['kept'] });
  });
});
