import { setJobsFacade } from '../declare/ambient';
import { directJobsFacade } from '../declare/direct-facade';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { publishEvent, resetEventBus } from './publish-event';

describe('publishEvent: what reaches the installed bus', () => {
  let h: JobsHarness;
  beforeEach(async () => {
    h = await runJobs({ jobs: [], queues: ['events'] });
  });
  afterEach(async () => {
    await h.close();
  });

  it('hands the TTL it is given to the bus: the event stops matching when it runs out', async () => {
    const since = h.clock.now();
    const published = await publishEvent('quote.offered', { price: 10 }, { ttlMs: 5_000 });
    expect(published.expiresAt).toBe(published.publishedAt + 5_000);
    await h.advance(4_999);
    expect((await h.events.find('quote.offered', since))?.payload).toEqual({ price: 10 });
    await h.advance(1);
    expect(await h.events.find('quote.offered', since)).toBeUndefined();
  });
});

describe('publishEvent on a facade with no event bus', () => {
  it('is X_DRIVER_UNAVAILABLE, never a TypeError; resetEventBus has nothing to forget', async () => {
    const driver = memoryJobDriver();
    const uninstall = setJobsFacade(directJobsFacade({ driver }));
    try {
      const failed: unknown = await publishEvent('invoice.paid', { n: 1 }).then(
        () => 'resolved',
        (error: unknown) => error,
      );
      expect(errorCodeOf(failed)).toBe('X_DRIVER_UNAVAILABLE');
      // it speaks of the event and of the facade's missing bus, not of a job
      expect(String(failed)).toContain('the event was not published');
      expect(String(failed)).not.toContain('job was not queued');
      expect((failed as { fix?: string }).fix).toContain('events: backend.events');
      await expect(resetEventBus()).resolves.toBeUndefined();
    } finally {
      uninstall();
      await driver.close();
    }
  });
});
