import { claimOf, JobDuplicateError, type EnqueueRequest } from '@ultimat3/jobs';
import { orderedRequests } from '../../jobs/test/requests';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { ENQUEUE_ONE_PLAIN, ENQUEUE_ONE_PLAIN_FIELDS } from './lua/enqueue-one.lua';
import { redisJobDriver } from './redis-driver';
import { enqueueArgs, enqueueOneArgs } from './redis-enqueue';
import { redisKeyPrefix } from './redis-keys';

let redis: TestRedis;

beforeAll(() => {
  redis = createTestRedis();
});

afterAll(async () => {
  await redis?.drop();
});

/** A request due at 0 with fresh ids minted in build order; `key` names its idempotency key. */
const ordered = orderedRequests({ name: 'enqueue.job', queue: 'q', input: { n: 1 }, runAt: 0 });
const request = (key: string, overrides: Partial<EnqueueRequest> = {}): EnqueueRequest =>
  ordered({ idempotencyKey: key, ...overrides });

/** A fresh deployment: its driver, and what its storage holds (the id index and the row hashes). */
function deployment() {
  const name = redis.prefix();
  const prefix = redisKeyPrefix(name);
  const driver = redisJobDriver({ client: redis.client, prefix: name });
  return {
    driver,
    listed: () => redis.client.zrange(`${prefix}all`, 0, -1),
    rowExists: async (id: string) => (await redis.client.exists(`${prefix}j:${id}`)) === 1,
    row: (id: string) => redis.client.hgetall(`${prefix}j:${id}`),
  };
}

// A single enqueue takes its id in the id index (ZADD NX) before it looks at the live key: a request that meets a
// live key, or an id already stored, must leave the index and the rows exactly as they were.
describe('redis enqueue of one request: the id index', () => {
  it('lists a fresh row once, and a dedupe on its live key lists nothing more', async () => {
    const d = deployment();
    const first = request('k');
    expect(await d.driver.enqueue(first)).toEqual({
      id: first.id,
      runId: first.runId,
      deduped: false,
    });
    const second = request('k');
    expect(await d.driver.enqueue(second)).toEqual({
      id: first.id,
      runId: first.runId,
      deduped: true,
    });
    expect(await d.listed()).toEqual([first.id]);
    expect(await d.rowExists(second.id)).toBe(false);
    expect((await d.driver.introspect.list()).map((r) => r.id)).toEqual([first.id]);
  });

  it("refuses onConflict 'error' on a live key with X_JOB_DUPLICATE, leaving the index as it was", async () => {
    const d = deployment();
    const first = request('k');
    await d.driver.enqueue(first);
    const refused = request('k', { onConflict: 'error' });
    await expect(d.driver.enqueue(refused)).rejects.toBeInstanceOf(JobDuplicateError);
    expect(await d.listed()).toEqual([first.id]);
    expect(await d.rowExists(refused.id)).toBe(false);
  });

  it('answers a stored id with its own run, deduped, whatever key the repeat carries', async () => {
    const d = deployment();
    const first = request('k');
    await d.driver.enqueue(first);
    const repeat = { ...request('other'), id: first.id };
    expect(await d.driver.enqueue(repeat)).toEqual({
      id: first.id,
      runId: first.runId,
      deduped: true,
    });
    expect(await d.listed()).toEqual([first.id]);
    // the repeat's key was never taken: a request under it is a fresh row
    const other = request('other');
    expect((await d.driver.enqueue(other)).deduped).toBe(false);
    expect(await d.listed()).toEqual([first.id, other.id]);
  });

  it('enqueues a fresh row under a key whose holder finished, and lists both', async () => {
    const d = deployment();
    const first = request('k');
    await d.driver.enqueue(first);
    const [claimed] = await d.driver.claim({
      workerId: 'w',
      visibilityTimeoutMs: 30_000,
      slots: [{ queue: 'q', limit: 1 }],
    });
    expect(claimed?.id).toBe(first.id);
    expect(await d.driver.ack(first.id, claimOf(claimed!))).toBe(true);
    const again = request('k');
    expect((await d.driver.enqueue(again)).deduped).toBe(false);
    expect(await d.listed()).toEqual([first.id, again.id]);
  });
});

// One request is written by its own straight path (LUA_ENQUEUE_ONE), a batch by insertAt: both must store the same row.
describe('redis enqueue of one request: the layouts', () => {
  const OPTIONAL: Partial<EnqueueRequest>[] = [
    { tenantId: '' },
    { tenantId: 'org-1' },
    { enqueuedBy: 'user-1' },
    { concurrencyKey: 'acct-1' },
    { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    { crossTenantReason: 'support' },
    { onConflict: 'error' },
  ];

  it('sends a request with no optional field that dedupes in the plain layout, any other in the batch layout', () => {
    const plain = request('k');
    const args = enqueueOneArgs(plain);
    expect(args).toHaveLength(1 + ENQUEUE_ONE_PLAIN_FIELDS);
    expect(args[0]).toBe(ENQUEUE_ONE_PLAIN);
    for (const overrides of OPTIONAL) {
      const full = request('k', overrides);
      expect(enqueueOneArgs(full)).toEqual(enqueueArgs([full]));
    }
  });

  it("stores a single request's row field for field, in order, as a batch stores the same request", async () => {
    const d = deployment();
    // the ids, the key and the times are the request's own
    const OWN = new Set(['id', 'run', 'key', 'ca', 'ua']);
    const shared = (row: Record<string, string>) =>
      Object.entries(row).filter(([field]) => !OWN.has(field));
    for (const [i, overrides] of [{}, ...OPTIONAL, { runAt: Date.now() + 3_600_000 }].entries()) {
      const single = request(`single-${i}`, overrides);
      const batched = request(`batched-${i}`, overrides);
      await d.driver.enqueue(single);
      await d.driver.enqueueMany([batched, request(`other-${i}`)]);
      const [a, b] = [await d.row(single.id), await d.row(batched.id)];
      expect(Object.keys(a)).toEqual(Object.keys(b));
      expect(shared(a)).toEqual(shared(b));
      expect([a.id, a.run, a.key]).toEqual([single.id, single.runId, single.idempotencyKey]);
    }
  });
});
