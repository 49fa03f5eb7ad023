import type { EnqueueRequest, JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { JobInputInvalidError } from '../errors/declaration-errors';
import { t } from '../schema';
import type { StandardSchemaV1 } from '../schema/standard';
import { frozenClock, type FrozenClock } from '../testing/frozen-clock';
import { runJobs } from '../testing/run-jobs';
import { setJobsFacade } from './ambient';
import { directJobsFacade } from './direct-facade';
import { MAX_INPUT_BYTES } from './enqueue';
import { job } from './job';
import { rejection } from '../../test/outcomes';

const RUN = '0190a0a0-0000-7000-8000-0000000000aa';
let n = 0;
const unique = (): string => `many-${++n}`;

/** The memory driver, counting its batch writes: "one write" is what a batch promises. */
function countingDriver(clock: FrozenClock): {
  driver: JobDriver;
  batches: EnqueueRequest[][];
  singles: number;
} {
  const inner = memoryJobDriver({ clock });
  const seen = { batches: [] as EnqueueRequest[][], singles: 0 };
  const driver: JobDriver = {
    ...inner,
    kind: inner.kind,
    steps: inner.steps,
    enqueue: (request) => {
      seen.singles += 1;
      return inner.enqueue(request);
    },
    enqueueMany: (requests) => {
      seen.batches.push([...requests]);
      return inner.enqueueMany(requests);
    },
  };
  return {
    driver,
    get batches() {
      return seen.batches;
    },
    get singles() {
      return seen.singles;
    },
  };
}

const address = t.object({ city: t.string.min(1), zip: t.string.regex(/^\d{5}$/) });
const declare = () =>
  job({
    name: unique(),
    input: t.object({ email: t.string.min(3), address, tags: t.array(t.string.max(5)) }),
    idempotencyKey: ({ email }) => `welcome:${email}`,
    tenant: 'none',
  });
const ok = (email: string) => ({
  email,
  address: { city: 'Lyon', zip: '69001' },
  tags: ['a'],
});

describe('handle.enqueueMany (memory driver)', () => {
  let counted: ReturnType<typeof countingDriver>;
  let uninstall: () => void = () => undefined;
  beforeEach(() => {
    const clock = frozenClock();
    counted = countingDriver(clock);
    uninstall = setJobsFacade(directJobsFacade({ driver: counted.driver, clock }));
  });
  afterEach(() => uninstall());

  it('queues every input in ONE driver write and answers { id, runId, deduped } per item, in order', async () => {
    const h = declare();
    const results = await h.enqueueMany([ok('a@x.io'), ok('b@x.io'), ok('c@x.io')]);
    expect(counted.batches).toHaveLength(1);
    expect(counted.singles).toBe(0);
    expect(results).toHaveLength(3);
    const rows = await Promise.all(results.map((r) => counted.driver.get(r.id)));
    expect(rows.map((r) => (r?.input as { email: string }).email)).toEqual([
      'a@x.io',
      'b@x.io',
      'c@x.io',
    ]);
    results.forEach((r, i) => {
      expect(r).toEqual({ id: rows[i]?.id, runId: rows[i]?.runId, deduped: false });
    });
    expect(new Set(results.map((r) => r.runId)).size).toBe(3);
  });

  it('judges items as if enqueued one by one: a repeated key answers the first item, a live key its holder', async () => {
    const h = declare();
    const live = await h.enqueue(ok('live@x.io'));
    const [first, again, held] = await h.enqueueMany([
      ok('new@x.io'),
      ok('new@x.io'),
      ok('live@x.io'),
    ]);
    expect(first?.deduped).toBe(false);
    expect(again).toEqual({ id: first?.id, runId: first?.runId, deduped: true });
    expect(held).toEqual({ ...live, deduped: true });
  });

  it('reports EVERY invalid item in one X_JOB_INPUT_INVALID carrying its index and path, and writes nothing', async () => {
    const h = declare();
    const error = await rejection(
      h.enqueueMany([
        ok('fine@x.io'),
        { ...ok('bad-city@x.io'), address: { city: '', zip: '69001' } },
        ok('fine2@x.io'),
        { ...ok('bad-tag@x.io'), tags: ['ok', 'too-long'] },
      ]),
    );
    expect(error).toBeInstanceOf(JobInputInvalidError);
    expect(error['code']).toBe('X_JOB_INPUT_INVALID');
    expect(error['issues']).toEqual([
      { index: 1, path: 'address.city', message: expect.any(String) },
      { index: 3, path: 'tags[1]', message: expect.any(String) },
    ]);
    expect(String(error['message'])).toContain('[1] address.city');
    expect(counted.batches).toHaveLength(0);
    expect(await counted.driver.stats()).toEqual([]);
  });

  it("rethrows a validator's own throw as it is, after the items before it were judged, and writes nothing", async () => {
    const thrown = new Error('validator exploded');
    const exploding: StandardSchemaV1<{ n: number }> = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) => {
          const v = value as { n: number };
          if (v.n === 2) throw thrown;
          return v.n < 0 ? { issues: [{ message: 'negative' }] } : { value: v };
        },
      },
    };
    const h = job({
      name: unique(),
      input: exploding,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
    });
    // an invalid item before the throwing one does not mask the throw: it is not the item's own problem
    expect(await rejection(h.enqueueMany([{ n: -1 }, { n: 1 }, { n: 2 }, { n: -3 }]))).toBe(thrown);
    expect(counted.batches).toHaveLength(0);
    // without the throwing item, every invalid item is reported
    const error = await rejection(h.enqueueMany([{ n: -1 }, { n: 1 }, { n: -3 }]));
    expect(error['issues']).toEqual([
      { index: 0, path: '', message: 'negative' },
      { index: 2, path: '', message: 'negative' },
    ]);
  });

  it('takes a validator that answers some items at once and others with a promise, in order, judging each', async () => {
    const thrown = new Error('async validator exploded');
    const mixed: StandardSchemaV1<{ n: number }> = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) => {
          const v = value as { n: number };
          const result = v.n < 0 ? { issues: [{ message: 'negative' }] } : { value: { n: v.n } };
          if (v.n === 7) return Promise.reject(thrown);
          return v.n % 2 === 1 ? Promise.resolve(result) : result;
        },
      },
    };
    const h = job({
      name: unique(),
      input: mixed,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
    });
    const queued = await h.enqueueMany([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(queued.map((r) => r.deduped)).toEqual([false, false, false, false]);
    const rows = await Promise.all(queued.map((r) => counted.driver.get(r.id)));
    expect(rows.map((row) => row?.input)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    // a promised issue and a synchronous one are both reported by index; a promised throw is rethrown at its turn
    const error = await rejection(h.enqueueMany([{ n: -2 }, { n: 2 }, { n: -1 }]));
    expect(error['issues']).toEqual([
      { index: 0, path: '', message: 'negative' },
      { index: 2, path: '', message: 'negative' },
    ]);
    expect(await rejection(h.enqueueMany([{ n: -2 }, { n: 7 }, { n: 1 }]))).toBe(thrown);
    expect(counted.batches).toHaveLength(1);
  });

  it('holds each item to the payload size limit, reporting the item by index', async () => {
    const h = job({
      name: unique(),
      input: t.object({ blob: t.string }),
      idempotencyKey: ({ blob }) => `blob:${blob.length}`,
      tenant: 'none',
    });
    const error = await rejection(
      h.enqueueMany([{ blob: 'small' }, { blob: 'x'.repeat(MAX_INPUT_BYTES) }]),
    );
    expect(error['code']).toBe('X_JOB_INPUT_INVALID');
    expect(error['issues']).toEqual([
      { index: 1, path: '', message: expect.stringContaining(`${MAX_INPUT_BYTES}-byte limit`) },
    ]);
    expect(counted.batches).toHaveLength(0);
  });

  it('answers [] for an empty array without writing, and refuses a non-array', async () => {
    const h = declare();
    expect(await h.enqueueMany([])).toEqual([]);
    expect(counted.batches).toHaveLength(0);
    const error = await rejection(h.enqueueMany('nope' as unknown as []));
    expect(error).toMatchObject({ code: 'X_JOB_OPTIONS_INVALID', meta: { field: 'inputs' } });
  });

  it('applies options to every item: one runId names the run of the whole batch, delay makes each delayed', async () => {
    const h = declare();
    const results = await h.enqueueMany([ok('r1@x.io'), ok('r2@x.io')], {
      runId: RUN,
      delay: '1h',
    });
    expect(results.map((r) => r.runId)).toEqual([RUN, RUN]);
    for (const r of results) expect((await counted.driver.get(r.id))?.state).toBe('delayed');
  });

  it("refuses the whole batch under onConflict: 'error' when an item meets a live key", async () => {
    const h = declare();
    await h.enqueue(ok('taken@x.io'));
    const error = await rejection(
      h.enqueueMany([ok('other@x.io'), ok('taken@x.io')], { onConflict: 'error' }),
    );
    expect(error['code']).toBe('X_JOB_DUPLICATE');
    const stats = await counted.driver.stats();
    expect(stats.reduce((sum, q) => sum + q.ready, 0)).toBe(1);
  });
});

describe('enqueueMany runs', () => {
  it('every queued item runs once, with its own input', async () => {
    const seen: string[] = [];
    const h = job({
      name: unique(),
      input: t.object({ n: t.number.int() }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ input }) {
        seen.push(String(input.n));
      },
    });
    const harness = await runJobs({ jobs: [h] });
    try {
      await h.enqueueMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
      await harness.settle();
      expect(seen.sort()).toEqual(['1', '2', '3']);
    } finally {
      await harness.close();
    }
  });
});
