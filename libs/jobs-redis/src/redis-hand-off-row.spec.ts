import type { ClaimedJob, EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { enqueueRequest } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { redisContext } from './redis-context';
import { redisJobDriver } from './redis-driver';
import { handedRows } from './redis-hand-off-reply';
import { redisKeyPrefix } from './redis-keys';

const QUEUE = 'hand-off-row-q';
const NAME = 'redis-hand-off-row.job';
const VT = 30_000;
const WORKER = 'ghost';

const file = testRedisSpec();

/** Every key of a deployment with its type and contents (hashes as their field lists, in stored order). */
async function snapshot(prefix: string): Promise<Map<string, unknown>> {
  const client = file.redis.client;
  const p = redisKeyPrefix(prefix);
  const keys = (await client.keys(`${p}*`)).sort();
  const out = new Map<string, unknown>();
  for (const key of keys) {
    const type = await client.type(key);
    const name = key.slice(p.length);
    if (type === 'hash') out.set(name, await client.hgetall(key));
    else if (type === 'zset') out.set(name, await client.zrange(key, 0, -1, 'WITHSCORES'));
    else if (type === 'set') out.set(name, (await client.smembers(key)).sort());
    else if (type === 'list') out.set(name, await client.lrange(key, 0, -1));
    else out.set(name, await client.get(key));
  }
  return out;
}

/** A hash's field names in stored order (a small hash answers HGETALL in insertion order; the claim's packing relies on it). */
const fieldOrder = async (key: string): Promise<string[]> =>
  ((await file.redis.client.call('HGETALL', key)) as string[]).filter((_, i) => i % 2 === 0);

describe('a row handed off inside its enqueue', () => {
  const requests: [string, () => EnqueueRequest][] = [
    [
      'plain',
      () =>
        enqueueRequest({
          name: NAME,
          queue: QUEUE,
          input: { n: 1, s: 'é\u2028' },
          idempotencyKey: 'k:1',
        }),
    ],
    [
      'with every optional field',
      () =>
        enqueueRequest({
          name: NAME,
          queue: QUEUE,
          input: { n: 2 },
          idempotencyKey: 'k:2',
          tenantId: 'acme',
          enqueuedBy: 'user:7',
          concurrencyKey: 'ck:9',
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          crossTenantReason: 'support ticket 12',
          maxAttempts: 7,
          priority: 3,
        }),
    ],
  ];

  it.each(requests)(
    '(%s) is stored, indexed and answered as the same row enqueued ready and then claimed',
    async (_label, build) => {
      const clock = frozenClock();
      const request = { ...build(), runAt: clock.now() };
      const handed = file.redis.prefix();
      const claimed = file.redis.prefix();
      const handing = redisJobDriver({ client: file.redis.client, prefix: handed, clock });
      const claiming = redisJobDriver({ client: file.redis.client, prefix: claimed, clock });
      // an idle worker registered on `handed` (as redis-hand-off.ts registers it), never popping
      const q = `${redisKeyPrefix(handed)}q:${QUEUE.length}:${QUEUE}`;
      await file.redis.client.set(`${q}:ho:${WORKER}`, `2|${VT}|*`, 'PX', 60_000);
      await file.redis.client.zadd(`${q}:ho`, 0, WORKER);

      expect(await handing.enqueue(request)).toEqual({
        id: request.id,
        runId: request.runId,
        deduped: false,
      });
      await claiming.enqueue(request);
      const [took] = await claiming.claim({
        workerId: WORKER,
        visibilityTimeoutMs: VT,
        slots: [{ queue: QUEUE, limit: 1 }],
      });
      const entries = await file.redis.client.lrange(
        `${redisKeyPrefix(handed)}hl:${WORKER}`,
        0,
        -1,
      );
      const { rows, unreadable } = await handedRows(
        redisContext(file.redis.client, redisKeyPrefix(handed)),
        WORKER,
        entries,
      );
      expect(unreadable).toEqual([]);
      expect(rows).toHaveLength(1);
      const give = rows[0] as ClaimedJob;
      // the answer: every field the claim's, but the token (unique per hand-off)
      expect({ ...give, claim: '' }).toEqual({ ...took, claim: '' });
      expect(give.claim).toMatch(/^h\d+:.+:1$/);

      // the stored row: the same fields and values (but the token), the inserted ones first in the enqueue's order
      const rowKey = (prefix: string): string => `${redisKeyPrefix(prefix)}j:${request.id}`;
      const stored = await file.redis.client.hgetall(rowKey(handed));
      expect({ ...stored, c: '' }).toEqual({
        ...(await file.redis.client.hgetall(rowKey(claimed))),
        c: '',
      });
      expect(stored.c).toBe(give.claim);
      const first = [
        'id',
        'run',
        'name',
        'q',
        'input',
        'key',
        'st',
        'att',
        'max',
        'pri',
        'at',
        'ca',
      ];
      expect((await fieldOrder(rowKey(handed))).slice(0, first.length)).toEqual(first);

      // every other key alike, but the hand-off's own (the registration, its list) and a zero left by the claim's move
      const mine = await snapshot(handed);
      const theirs = await snapshot(claimed);
      const counts = `q:${QUEUE.length}:${QUEUE}:n`;
      const live = (counts: unknown): Record<string, string> =>
        Object.fromEntries(
          Object.entries(counts as Record<string, string>).filter(([, n]) => n !== '0'),
        );
      expect(live(mine.get(counts))).toEqual(live(theirs.get(counts)));
      for (const key of [counts, `j:${request.id}`]) {
        mine.delete(key);
        theirs.delete(key);
      }
      mine.delete(`hl:${WORKER}`);
      mine.delete(`q:${QUEUE.length}:${QUEUE}:ho`);
      mine.delete(`q:${QUEUE.length}:${QUEUE}:ho:${WORKER}`);
      expect(mine).toEqual(theirs);
      // the registration gave up the slot the row took
      expect(await file.redis.client.get(`${q}:ho:${WORKER}`)).toBe(`1|${VT}|*`);
    },
  );
});
