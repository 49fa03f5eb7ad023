import { recordingLogger, type ClaimedJob, type WakeHandOff } from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { enqueueRequest } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { redisContext, type RedisContext } from './redis-context';
import { redisJobDriver, type RedisJobDriver } from './redis-driver';
import { HandOffDelivery } from './redis-hand-off-delivery';
import { HAND_OFF_STOP } from './redis-hand-off-reply';
import { redisKeyPrefix } from './redis-keys';

const QUEUE = 'delivery-q';
const NAME = 'redis-hand-off-delivery.job';
const WORKER = 'delivery-worker';
const VT = 30_000;

const file = testRedisSpec();

describe('HandOffDelivery', () => {
  let clock: FrozenClock;
  let prefix: string;
  let ctx: RedisContext;
  let driver: RedisJobDriver;
  let taken: ClaimedJob[][];
  let target: WakeHandOff;
  beforeEach(() => {
    clock = frozenClock();
    prefix = file.redis.prefix();
    ctx = redisContext(file.redis.client, redisKeyPrefix(prefix), clock);
    driver = redisJobDriver({ client: file.redis.client, prefix, clock });
    taken = [];
    target = {
      workerId: WORKER,
      visibilityTimeoutMs: VT,
      offers: () => [],
      takeClaimed: (rows) => void taken.push([...rows]),
      onIdle: () => () => undefined,
    };
  });
  afterEach(async () => {
    await driver.close();
  });

  /** Enqueues `n` rows (inputs 1..n) due now with `WORKER` registered idle: answers their ids and the handed entries. */
  async function handed(n: number): Promise<{ ids: string[]; entries: string[] }> {
    const p = redisKeyPrefix(prefix);
    const q = `${p}q:${Buffer.byteLength(QUEUE)}:${QUEUE}`;
    await file.redis.client.set(`${q}:ho:${WORKER}`, `${n}|${VT}|*`, 'PX', 60_000);
    await file.redis.client.zadd(`${q}:ho`, 0, WORKER);
    const ids: string[] = [];
    for (let i = 1; i <= n; i++) {
      const request = enqueueRequest({
        name: NAME,
        queue: QUEUE,
        input: { n: i },
        idempotencyKey: `k:${i}`,
        runAt: clock.now(),
      });
      ids.push((await driver.enqueue(request)).id);
    }
    const entries = await file.redis.client.lrange(`${p}hl:${WORKER}`, 0, -1);
    expect(entries).toHaveLength(n);
    return { ids, entries };
  }

  it('gives rows read from their entries to the worker at once, in order, with no promise', async () => {
    const { ids, entries } = await handed(2);
    expect(new HandOffDelivery(ctx, target).deliver([...entries, HAND_OFF_STOP])).toBeUndefined();
    expect(taken).toHaveLength(1);
    expect(taken[0]!.map((row) => [row.id, row.workerId, row.input])).toEqual([
      [ids[0], WORKER, { n: 1 }],
      [ids[1], WORKER, { n: 2 }],
    ]);
    expect(new HandOffDelivery(ctx, target).deliver([HAND_OFF_STOP])).toBeUndefined();
    expect(taken).toHaveLength(1);
  });

  it('buries a row whose stored input is not JSON text, fenced on its token, then gives the others', async () => {
    const { ids, entries } = await handed(2);
    const broken = entries[1]!.replace('{"n":2}', 'not json');
    const delivering = new HandOffDelivery(ctx, target).deliver([entries[0]!, broken]);
    expect(delivering).toBeInstanceOf(Promise);
    expect(taken).toEqual([]);
    await delivering;
    expect(taken.map((rows) => rows.map((row) => row.id))).toEqual([[ids[0]]]);
    expect(await driver.get(ids[1]!)).toMatchObject({
      state: 'dead',
      lastError: `X_JOB_INPUT_INVALID: the stored input of job ${NAME} is not JSON text`,
    });
    expect((await driver.get(ids[0]!))?.state).toBe('running');
  });

  it('gives the good rows when the burial of an unreadable one fails: logged, that row left leased', async () => {
    const { ids, entries } = await handed(3);
    const broken = entries[0]!.replace('{"n":1}', 'not json');
    const closed = file.redis.client.duplicate();
    await closed.quit();
    const logger = recordingLogger();
    const down = redisContext(closed, redisKeyPrefix(prefix), clock);
    await new HandOffDelivery(down, target, logger).deliver([broken, entries[1]!, entries[2]!]);
    expect(taken.map((rows) => rows.map((row) => row.id))).toEqual([[ids[1], ids[2]]]);
    expect(logger.named('jobs.hand-off.bury-failed')).toEqual([
      {
        level: 'warn',
        event: 'jobs.hand-off.bury-failed',
        fields: { workerId: WORKER, error: expect.any(String) },
      },
    ]);
    // not buried: still leased to this worker, so its lease lapses and the rescue takes it again
    expect(await driver.get(ids[0]!)).toMatchObject({ state: 'running', workerId: WORKER });
  });

  it('hands rows back unstarted, and logs a hand-back that fails without throwing', async () => {
    const { ids, entries } = await handed(2);
    new HandOffDelivery(ctx, target).deliver(entries);
    const rows = taken[0]!;
    await new HandOffDelivery(ctx, target).handBack(rows);
    for (const id of ids)
      expect(await driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });

    const closed = file.redis.client.duplicate();
    await closed.quit();
    const logger = recordingLogger();
    const down = redisContext(closed, redisKeyPrefix(prefix), clock);
    await new HandOffDelivery(down, target, logger).handBack(rows);
    expect(logger.named('jobs.hand-off.hand-back-failed')).toEqual(
      rows.map(() => ({
        level: 'warn',
        event: 'jobs.hand-off.hand-back-failed',
        fields: { workerId: WORKER, error: expect.any(String) },
      })),
    );
  });
});
