import { frozenClock } from '../testing/frozen-clock';
import { memoryEventBus } from './memory-event-bus';

describe('memoryEventBus: an expired event is not kept for ever', () => {
  it('a long-lived bus that publishes steadily holds a bounded number of expired events, no sweep needed', async () => {
    // no retention sweep reaches the memory bus (the memory driver's purge targets are its own rows): a one-process
    // app publishing all day must not keep every event it ever published, nor scan them all on every wait's poll
    const clock = frozenClock();
    const bus = memoryEventBus({ clock });
    const since = clock.now();
    for (let i = 0; i < 10_000; i++) {
      await bus.publish('tick', { i }, { ttlMs: 1_000 });
      if (i % 10 === 9 && i < 9_999) await clock.advance(1_000); // ten live at a time
    }
    // what a sweep would find still held: the expired events publish did not drop on its own
    const held = await bus.purgeExpired();
    expect(held).toBeLessThan(200);
    // the live ones are all still matchable, the earliest first
    expect((await bus.find('tick', since))?.payload).toEqual({ i: 9_990 });
    expect(
      (await bus.find('tick', since, (p) => (p as { i: number }).i === 9_999))?.payload,
    ).toEqual({ i: 9_999 });
    await clock.advance(1_000);
    expect(await bus.find('tick', since)).toBeUndefined();
  });
});
