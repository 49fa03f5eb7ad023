import { errorCodeOf, JobsError } from '../errors/jobs-error';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import type { EventBus } from './event-bus';
import { memoryEventBus } from './memory-event-bus';
import { publishEvent } from './publish-event';

/** The field an X_VALUE_INVALID named, or the code it failed with. */
async function refused(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
    return 'resolved';
  } catch (error) {
    if (error instanceof JobsError && error.code === 'X_VALUE_INVALID') {
      return String(error.meta['field']);
    }
    return errorCodeOf(error);
  }
}

describe('publishEvent: the value contract before any bus sees the event', () => {
  let h: JobsHarness;
  let published: string[];
  beforeEach(async () => {
    published = [];
    const inner = memoryEventBus();
    // a bus that refuses nothing: whatever reaches it is recorded, so a refusal here is core's
    const bus: EventBus = {
      ...inner,
      publish: (name, payload, options) => {
        published.push(name);
        return inner.publish(name, payload, options);
      },
    };
    h = await runJobs({ jobs: [], queues: ['events'], events: bus });
  });
  afterEach(async () => {
    await h.close();
  });

  it('refuses a bad name, tenant, TTL or payload with X_VALUE_INVALID naming the field, the bus untouched', async () => {
    expect(await refused(() => publishEvent('paid\u0000', 1))).toBe('event.name');
    expect(await refused(() => publishEvent('paid\ud800', 1))).toBe('event.name');
    expect(await refused(() => publishEvent('paid', 1, { tenant: 'org\udc00' }))).toBe(
      'event.tenant',
    );
    expect(await refused(() => publishEvent('paid', 1, { tenant: '' }))).toBe('event.tenant');
    expect(await refused(() => publishEvent('paid', 1, { ttlMs: Number.NaN }))).toBe('event.ttlMs');
    expect(await refused(() => publishEvent('paid', [undefined] as never))).toBe('event.payload');
    expect(await refused(() => publishEvent('paid', 'x'.repeat(1_048_576)))).toBe('event.payload');
    expect(published).toEqual([]);
    expect(await refused(() => publishEvent('paid', { ok: '\u0000\ud800' }))).toBe('resolved');
    expect(published).toEqual(['paid']);
  });
});
