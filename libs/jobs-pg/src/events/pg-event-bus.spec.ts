import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresEventBus } from './pg-event-bus';

describe('postgresEventBus', () => {
  const db = pgJobsSpec();

  it('stamps with the database clock and answers now() from the same clock', async () => {
    const bus = postgresEventBus({ executor: db.executor });
    const { rows } = await db.executor.query<{ ms: string }>(
      'select extract(epoch from now()) * 1000 as ms',
      [],
    );
    const before = await bus.now();
    expect(Math.abs(before - Number(rows[0]?.ms))).toBeLessThan(60_000);
    const event = await bus.publish('order.approved', { orderId: 'o-1' });
    expect(event.publishedAt).toBeGreaterThanOrEqual(before);
    expect(event.expiresAt).toBeGreaterThan(event.publishedAt);
    expect(await bus.now()).toBeGreaterThanOrEqual(event.publishedAt);
  });

  it('finds the earliest matching event published since a time, across pages', async () => {
    const bus = postgresEventBus({ executor: db.executor, pageSize: 3 });
    await bus.reset();
    const since = await bus.now();
    for (let i = 0; i < 10; i++) await bus.publish('order.paid', { orderId: `o-${i}` });
    const hit = await bus.find(
      'order.paid',
      since,
      (p) => (p as { orderId: string }).orderId === 'o-7',
    );
    expect(hit?.payload).toEqual({ orderId: 'o-7' });
    const first = await bus.find('order.paid', since);
    expect(first?.payload).toEqual({ orderId: 'o-0' });
    expect(await bus.find('order.paid', since, () => false)).toBeUndefined();
    const later = await bus.now();
    expect(await bus.find('order.paid', later + 1)).toBeUndefined();
  });

  it('forgets expired events, and purgeExpired answers how many it removed', async () => {
    const bus = postgresEventBus({ executor: db.executor });
    await bus.reset();
    const since = await bus.now();
    await bus.publish('short', { n: 1 }, { ttlMs: 1 });
    await bus.publish('long', { n: 2 });
    await db.executor.query('select pg_sleep(0.01)', []);
    expect(await bus.find('short', since)).toBeUndefined();
    expect(await bus.purgeExpired()).toBe(1);
    expect((await bus.find('long', since))?.payload).toEqual({ n: 2 });
    await bus.reset();
    expect(await bus.find('long', since)).toBeUndefined();
  });
});
