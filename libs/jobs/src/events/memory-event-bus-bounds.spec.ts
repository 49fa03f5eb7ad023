import { frozenClock } from '../testing/frozen-clock';
import { memoryEventBus } from './memory-event-bus';

describe('memoryEventBus: the instant an event stops matching, and what a purge counts', () => {
  it('an event published with no TTL matches for one day, and not at the instant the day is up', async () => {
    const clock = frozenClock();
    const bus = memoryEventBus({ clock });
    const since = clock.now();
    const published = await bus.publish('invoice.paid', { n: 1 });
    expect(published.expiresAt).toBe(published.publishedAt + 86_400_000);
    await clock.advance(86_399_999);
    // a reader gets the event as publish answered it: its fields, nothing of how the bus stores it
    expect(await bus.find('invoice.paid', since)).toStrictEqual(published);
    await clock.advance(1);
    expect(await bus.find('invoice.paid', since)).toBeUndefined();
  });

  it('a purge deletes an event at the instant it expires, as the database buses do (expires_at <= now)', async () => {
    const clock = frozenClock();
    const bus = memoryEventBus({ clock });
    await bus.publish('tick', 1, { ttlMs: 1_000 });
    await bus.publish('tick', 2, { ttlMs: 1_001 });
    await clock.advance(999);
    expect(await bus.purgeExpired()).toBe(0);
    await clock.advance(1);
    expect(await bus.purgeExpired()).toBe(1);
    expect((await bus.find('tick', 0))?.payload).toBe(2);
    await clock.advance(1);
    expect(await bus.purgeExpired()).toBe(1);
    expect(await bus.purgeExpired()).toBe(0);
  });

  it('after a reset, a bus that once held many live events again drops expired ones from a small floor', async () => {
    // a test seam resets the bus between tests: the next test's steady publishing must stay bounded as on a new bus,
    // not keep every expired event until it reaches what the previous test once held
    const clock = frozenClock();
    const bus = memoryEventBus({ clock });
    for (let i = 0; i < 2_000; i++) await bus.publish('kept', { i });
    await bus.reset();
    const since = clock.now();
    for (let i = 0; i < 1_000; i++) {
      await bus.publish('tick', { i }, { ttlMs: 1_000 });
      if (i % 10 === 9 && i < 999) await clock.advance(1_000); // ten live at a time
    }
    expect(await bus.purgeExpired()).toBeLessThan(200);
    expect((await bus.find('tick', since))?.payload).toEqual({ i: 990 });
    expect(await bus.find('kept', 0)).toBeUndefined();
  });
});
