import { memoryEventBus, type EventBus, type JsonValue } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisContext } from './redis-context';
import { redisEventBus, redisEventBusOn } from './redis-event-bus';
import { redisKeyPrefix } from './redis-keys';

let redis: TestRedis;
beforeAll(() => {
  redis = createTestRedis();
});
afterAll(async () => {
  await redis?.drop();
});

const orderId = (p: JsonValue): string => (p as { orderId: string }).orderId;

describe('redisEventBus.find across pages', () => {
  it('keeps paging when the events of a page it read are purged before the next page is read', async () => {
    // the retention sweep deletes expired events while a wait pages through a busy name: the events the first page
    // read are gone by the time the second page is asked for, and the match on the second page must still be found
    const clock = frozenClock();
    const ctx = redisContext(redis.client, redisKeyPrefix(redis.prefix()), clock);
    let pages = 0;
    let purged = 0;
    const bus: EventBus = redisEventBusOn(
      {
        ...ctx,
        // every read of a page after the first runs after a purge of the expired events
        run: async (name, argv) => {
          if (name === 'eventPage' && pages++ > 0)
            purged += Number(await ctx.run('eventPurge', ['expired']));
          return ctx.run(name, argv);
        },
      },
      3,
    );
    const memory = memoryEventBus({ clock });
    await bus.reset();
    const since = clock.now();
    for (const b of [bus, memory]) {
      for (let i = 0; i < 6; i++) {
        await b.publish('order.paid', { orderId: `o-${i}` }, { ttlMs: i < 3 ? 1_000 : 60_000 });
      }
    }
    await clock.advance(2_000);
    const wanted = (p: JsonValue): boolean => orderId(p) === 'o-4';
    expect((await memory.find('order.paid', since, wanted))?.payload).toEqual({ orderId: 'o-4' });
    expect((await bus.find('order.paid', since, wanted))?.payload).toEqual({ orderId: 'o-4' });
    expect(purged).toBe(3);
  });

  it('walks every event in publish order across pages, ties of one millisecond included', async () => {
    const clock = frozenClock();
    const bus = redisEventBus({
      client: redis.client,
      prefix: redis.prefix(),
      clock,
      pageSize: 2,
    });
    for (let i = 0; i < 7; i++) {
      await bus.publish('order.paid', { orderId: `o-${i}` });
      if (i % 3 === 2) await clock.advance(1);
    }
    const seen: string[] = [];
    const none = await bus.find('order.paid', 0, (p) => {
      seen.push(orderId(p));
      return false;
    });
    expect(none).toBeUndefined();
    expect(seen).toEqual(['o-0', 'o-1', 'o-2', 'o-3', 'o-4', 'o-5', 'o-6']);
  });
});

describe('redisEventBus.find: any finite sinceMs', () => {
  it('answers as the memory bus for a since before or after every time the store holds, never a raw error', async () => {
    const answers = async (bus: EventBus): Promise<unknown[]> => {
      await bus.publish('order.paid', { n: 1 });
      const out: unknown[] = [];
      for (const since of [
        -Number.MAX_VALUE,
        -1e300,
        -1e17,
        -Number.MIN_VALUE,
        1e17,
        1e300,
        Number.MAX_VALUE,
      ]) {
        try {
          out.push((await bus.find('order.paid', since))?.payload ?? 'none');
        } catch (error) {
          out.push(`threw: ${String(error).slice(0, 80)}`);
        }
      }
      return out;
    };
    const expected = [{ n: 1 }, { n: 1 }, { n: 1 }, { n: 1 }, 'none', 'none', 'none'];
    expect(await answers(memoryEventBus())).toEqual(expected);
    expect(await answers(redisEventBus({ client: redis.client, prefix: redis.prefix() }))).toEqual(
      expected,
    );
  });
});
