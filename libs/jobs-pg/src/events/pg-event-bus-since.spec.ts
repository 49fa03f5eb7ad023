import { memoryEventBus, type EventBus } from '@ultimat3/jobs';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresEventBus } from './pg-event-bus';

describe('postgresEventBus.find: any finite sinceMs', () => {
  const db = pgJobsSpec();

  it('answers as the memory bus for a since before or after every time the database stores, never a raw error', async () => {
    const pg = postgresEventBus({ executor: db.executor });
    await pg.reset();
    const memory = memoryEventBus();
    const answers = async (bus: EventBus): Promise<unknown[]> => {
      await bus.publish('order.paid', { n: 1 });
      const out: unknown[] = [];
      for (const since of [-Number.MAX_VALUE, -1e300, -1e17, 1e17, 1e300, Number.MAX_VALUE]) {
        try {
          out.push((await bus.find('order.paid', since))?.payload ?? 'none');
        } catch (error) {
          out.push(`threw: ${String(error).slice(0, 80)}`);
        }
      }
      return out;
    };
    const expected = [{ n: 1 }, { n: 1 }, { n: 1 }, 'none', 'none', 'none'];
    expect(await answers(memory)).toEqual(expected);
    expect(await answers(pg)).toEqual(expected);
  });
});
