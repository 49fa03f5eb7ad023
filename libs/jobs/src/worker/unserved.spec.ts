import { job } from '../declare/job';
import type { ClaimOptions, JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { UNSERVED_AFTER_MS, UNSERVED_CHECK_INTERVAL_MS } from './unserved-names';

const input = t.object({ n: t.number });
const declare = (name: string, queue = 'default') =>
  job({
    name,
    queue,
    input,
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    run: () => 'ok',
  });

/** The build a worker was started from knows `deploy.old`; a newer build added `deploy.new` on the same queue. */
const oldJob = declare('deploy.old');
const newJob = declare('deploy.new');
const otherNew = declare('deploy.other-new');

describe('a worker serves only the job names it knows', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A worker that knows `deploy.old` only, on a driver whose claims and stats reads are recorded. */
  async function oldWorker(
    waitingBound?: (now: number) => number,
  ): Promise<{ h: JobsHarness; claims: ClaimOptions[]; statsReads: () => number }> {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    const claims: ClaimOptions[] = [];
    let reads = 0;
    const driver: JobDriver = {
      ...inner,
      claim: async (o) => {
        claims.push(o);
        return inner.claim(o);
      },
      claimRescuing: async (o, r) => {
        claims.push(o);
        return inner.claimRescuing(o, r);
      },
      // play a driver that knows a bound on its queues' waiting run times, as PostgreSQL's low water does
      ...(waitingBound === undefined ? {} : { waitingBound: () => waitingBound(clock.now()) }),
      stats: () => {
        reads++;
        return inner.stats();
      },
    };
    h = await runJobs({ jobs: [oldJob], clock, driver });
    return { h, claims, statsReads: () => reads };
  }

  it('names its served jobs on every claim slot', async () => {
    const { h, claims } = await oldWorker();
    await h.advance(1_000);
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) {
      expect(claim.slots.map((slot) => [slot.queue, slot.names])).toEqual([
        ['default', ['deploy.old']],
      ]);
    }
  });

  it('never attempts nor dead-letters a job it does not know: the row waits, ready, attempt 0', async () => {
    const { h } = await oldWorker();
    const unknown = await newJob.enqueue({ n: 1 });
    const known = await oldJob.enqueue({ n: 1 });
    await h.advance(5 * 60_000);
    expect(await h.driver.get(known.id)).toMatchObject({ state: 'done' });
    expect(await h.driver.get(unknown.id)).toMatchObject({
      state: 'ready',
      attempt: 0,
      lastError: null,
    });
    expect(h.worker.stats()).toMatchObject({ completed: 1, deadLettered: 0, retried: 0 });
    expect(h.logger.named('jobs.attempt.failed')).toEqual([]);
  });

  it('logs jobs.worker.unserved-name once per name, once its rows waited UNSERVED_AFTER_MS', async () => {
    const { h } = await oldWorker();
    const logged = (): readonly Readonly<Record<string, unknown>>[] =>
      h.logger.named('jobs.worker.unserved-name').map((e) => e.fields);
    await h.advance(UNSERVED_CHECK_INTERVAL_MS / 2);
    await newJob.enqueue({ n: 1 });
    await newJob.enqueue({ n: 2 });
    // the first check comes half an interval later: the rows have not waited UNSERVED_AFTER_MS yet
    await h.advance(UNSERVED_CHECK_INTERVAL_MS / 2);
    expect(logged()).toEqual([]);
    await h.advance(UNSERVED_CHECK_INTERVAL_MS);
    expect(UNSERVED_AFTER_MS).toBeLessThanOrEqual(1.5 * UNSERVED_CHECK_INTERVAL_MS);
    expect(logged()).toEqual([
      expect.objectContaining({
        workerId: h.worker.id,
        queue: 'default',
        name: 'deploy.new',
        count: 2,
        hint: expect.stringContaining('Deploy a worker that registers it'),
      }),
    ]);
    expect(h.logger.named('jobs.worker.unserved-name')[0]?.level).toBe('warn');

    await otherNew.enqueue({ n: 1 });
    await h.advance(10 * UNSERVED_CHECK_INTERVAL_MS);
    expect(logged().map((f) => f.name)).toEqual(['deploy.new', 'deploy.other-new']);
  });

  it('does not report a name of a queue it does not serve', async () => {
    const { h } = await oldWorker();
    await declare('elsewhere.job', 'reports').enqueue({ n: 1 });
    await h.advance(5 * UNSERVED_CHECK_INTERVAL_MS);
    expect(h.logger.named('jobs.worker.unserved-name')).toEqual([]);
  });

  it('reads no stats while the low water its claims learned proves no row has waited that long', async () => {
    const { h, statsReads } = await oldWorker((now) => now - 1_000);
    await h.advance(10 * UNSERVED_CHECK_INTERVAL_MS);
    expect(statsReads()).toBe(0);
  });

  it('reads the stats once the low water falls UNSERVED_AFTER_MS behind', async () => {
    const { h, statsReads } = await oldWorker((now) => now - UNSERVED_AFTER_MS);
    await h.advance(UNSERVED_CHECK_INTERVAL_MS);
    expect(statsReads()).toBe(1);
  });

  it('stops the slow cadence with the worker: no timer is left armed', async () => {
    const { h } = await oldWorker();
    await h.advance(UNSERVED_CHECK_INTERVAL_MS);
    await h.worker.stop();
    expect(h.clock.pending()).toBe(0);
  });
});
