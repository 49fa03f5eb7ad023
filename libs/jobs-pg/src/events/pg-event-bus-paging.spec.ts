import { pgJobsSpec } from '../../test/pg-jobs-spec';
import type { PgExecutor } from '../executor/pg-executor';
import { postgresEventBus } from './pg-event-bus';

describe('postgresEventBus.find across pages', () => {
  const db = pgJobsSpec();

  it('keeps paging when the event a page ended on is purged before the next page is read', async () => {
    // the retention sweep deletes expired events while a wait pages through a busy name: the event the first page
    // ended on is gone by the time the second page is asked for, and the match on the second page must still be found
    let pages = 0;
    const executor: PgExecutor = {
      async query<R>(text: string, values: readonly unknown[]) {
        const cursor = values[2];
        if (text.includes('from x_job_events e') && typeof cursor === 'string') {
          pages++;
          await db.executor.query('delete from x_job_events where id = $1::uuid', [cursor]);
        }
        return db.executor.query<R>(text, values);
      },
    };
    const bus = postgresEventBus({ executor, pageSize: 3 });
    await bus.reset();
    const since = await bus.now();
    for (let i = 0; i < 6; i++) await bus.publish('order.paid', { orderId: `o-${i}` });
    const wanted = (p: unknown): boolean => (p as { orderId: string }).orderId === 'o-4';
    expect((await bus.find('order.paid', since, wanted))?.payload).toEqual({ orderId: 'o-4' });
    expect(pages).toBe(1);
    // a tenant's lookup pages the same way
    const tenant = '0190a0a0-0000-7000-8000-0000000000a1';
    await bus.reset();
    for (let i = 0; i < 6; i++) await bus.publish('order.paid', { orderId: `o-${i}` }, { tenant });
    expect((await bus.find('order.paid', since, wanted, { tenant }))?.payload).toEqual({
      orderId: 'o-4',
    });
    expect(pages).toBe(2);
  });
});
