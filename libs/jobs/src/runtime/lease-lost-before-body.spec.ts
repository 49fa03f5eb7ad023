import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { gate } from '../testing/test-kit';

const input = t.object({ n: t.number });
const VISIBILITY = 3_000;

/**
 * A run whose lease is lost before its body starts — its fleet slot's acquire hung through a database stall while the
 * heartbeat found the row moved on — is no longer this worker's: the body must not start (another worker may be
 * running it), and the attempt ends `lost` at once rather than waiting on a body nobody will take the result of.
 */
describe('a lease lost while the fleet slot is being taken (memory driver, driven clock)', () => {
  let h: JobsHarness | undefined;
  const working = gate();
  afterEach(async () => {
    working.open();
    await h?.close();
    h = undefined;
  });

  it('the body never starts, the attempt ends lost, the slot is given back', async () => {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    const stall = gate();
    let stolen = false;
    const innerLeases = inner.leases;
    if (innerLeases === undefined) throw new Error('the memory driver keeps leases');
    const released: string[] = [];
    const driver: JobDriver = {
      ...inner,
      heartbeat: (...args) => (stolen ? Promise.resolve(false) : inner.heartbeat(...args)),
      leases: {
        ...innerLeases,
        acquire: (...args) => stall.promise.then(() => innerLeases.acquire(...args)),
        release: (key, holder) => {
          released.push(holder);
          return innerLeases.release(key, holder);
        },
      },
    };
    const started: number[] = [];
    const capped = job({
      name: 'lease-lost.before-body',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: 1,
      run: ({ input: i }) => {
        started.push(i.n);
        // a body that never reads its signal
        return working.promise;
      },
    });
    h = await runJobs({ jobs: [capped], clock, driver, visibilityTimeoutMs: VISIBILITY });
    const { id } = await capped.enqueue({ n: 1 });
    await h.settle();
    expect(h.worker.stats().inFlight).toBe(1);

    // another worker took the row: the next heartbeat finds it moved on
    stolen = true;
    await h.advance(VISIBILITY / 3);
    expect(h.logger.named('jobs.lease.lost')).toHaveLength(1);

    // the stall ends: the slot is taken, but the run is no longer this worker's
    stall.open();
    await h.settle();
    expect(started).toEqual([]);
    expect(h.worker.stats()).toMatchObject({ leasesLost: 1, inFlight: 0 });
    expect(h.logger.named('jobs.settle.unowned')[0]?.fields).toMatchObject({
      jobId: id,
      why: 'lease',
    });
    expect(released).toEqual([id]);
  });
});
