import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import type { ClaimedJob } from '../driver/job-row';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import type { JobWorker } from './worker-options';
import { gate, untilAborted } from '../testing/test-kit';
import { harnessWorker } from '../../test/harness-worker';

const input = t.object({ n: t.number });

describe('the drain', () => {
  const harnesses: JobsHarness[] = [];
  const workers: JobWorker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      const stopping = w.stop();
      await harnesses[0]?.settle();
      await stopping;
    }
    for (const h of harnesses.splice(0)) await h.close();
  });

  it('hands an attempts: 1 job back uncounted, and another worker completes it', async () => {
    const runs: { worker: string; reason?: unknown }[] = [];
    const handle = job({
      name: 'drain.survives-deploy',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 1 },
      async run({ ctx }) {
        const run: { worker: string; reason?: unknown } = {
          worker: (await h.driver.get(ctx.jobId))?.workerId ?? '?',
        };
        runs.push(run);
        if (runs.length > 1) return 'done elsewhere';
        try {
          await untilAborted(ctx.signal);
        } catch (error) {
          run.reason = error;
          throw error;
        }
      },
    });
    const h = await runJobs({ jobs: [handle], workerId: 'draining' });
    harnesses.push(h);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    h.worker.beginDrain('SIGTERM');
    await h.settle();
    expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });
    expect(errorCodeOf(runs[0]?.reason)).toBe('X_DRAINING');

    const next = harnessWorker(h, 'replacement');
    workers.push(next);
    await next.start();
    await h.settle();

    expect(runs.map((r) => r.worker)).toEqual(['draining', 'replacement']);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(h.worker.stats()).toMatchObject({ interrupted: 1, completed: 0 });
    expect(next.stats()).toMatchObject({ completed: 1 });
    expect(h.metrics.total('default', 'ok')).toBe(1);
    expect(h.metrics.total('default', 'failed')).toBe(0);
  });

  it('a draining worker claims nothing more', async () => {
    const handle = job({
      name: 'drain.no-claims',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => 'ran',
    });
    const h = await runJobs({ jobs: [handle] });
    harnesses.push(h);
    h.worker.beginDrain();
    const claims = h.worker.stats().claims;
    const { id } = await handle.enqueue({ n: 1 });
    await h.advance(60_000);

    expect((await h.driver.get(id))?.state).toBe('ready');
    expect(h.worker.stats().claims).toBe(claims);
  });

  it('a manual stop() aborts nothing and waits for the work it holds', async () => {
    const working = gate();
    let signal: AbortSignal | undefined;
    const handle = job({
      name: 'drain.manual-stop',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ ctx }) {
        signal = ctx.signal;
        await working.promise;
        return 'finished';
      },
    });
    const h = await runJobs({ jobs: [handle] });
    harnesses.push(h);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    let stopped = false;
    const stopping = h.worker.stop().then(() => {
      stopped = true;
    });
    await h.advance(600_000);
    expect(stopped).toBe(false);
    expect(signal?.aborted).toBe(false);
    expect(h.logger.named('jobs.worker.drain-abandoned')).toHaveLength(0);

    working.open();
    await h.settle();
    await stopping;
    expect(stopped).toBe(true);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(h.worker.stats()).toMatchObject({ completed: 1, interrupted: 0 });
  });

  it('a manual stop() while a claim is on the wire runs what that claim hands back', async () => {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    let hold: { resolve: () => void } | undefined;
    const driver: JobDriver = {
      ...inner,
      claim: async (options) => {
        const rows: readonly ClaimedJob[] = await inner.claim(options);
        if (rows.length > 0) await new Promise<void>((resolve) => (hold = { resolve }));
        return rows;
      },
      claimRescuing: async (options, rescue) => {
        const pass = await inner.claimRescuing(options, rescue);
        if (pass.claimed.length > 0) await new Promise<void>((resolve) => (hold = { resolve }));
        return pass;
      },
    };
    const reasons: unknown[] = [];
    const handle = job({
      name: 'drain.stop-during-claim',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ signal }) => {
        reasons.push(signal.reason);
        return 'ran';
      },
    });
    const h = await runJobs({ jobs: [handle], clock, driver });
    harnesses.push(h);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    expect(hold).toBeDefined();

    const stopping = h.worker.stop();
    hold?.resolve();
    await h.settle();
    await stopping;

    expect(reasons).toEqual([undefined]);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(h.worker.stats()).toMatchObject({ completed: 1, interrupted: 0 });
  });

  it('stop(deadlineAt) abandons a body that ignores its signal, and its lease lapses for another worker', async () => {
    const working = gate();
    let calls = 0;
    const handle = job({
      name: 'drain.abandoned',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 2 },
      async run() {
        calls++;
        if (calls === 1) await working.promise; // ignores ctx.signal
        return calls;
      },
    });
    const h = await runJobs({ jobs: [handle], visibilityTimeoutMs: 3_000, workerId: 'old' });
    harnesses.push(h);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    h.worker.beginDrain('SIGTERM');
    let stopped = false;
    const stopping = h.worker.stop(h.clock.now() + 5_000).then(() => {
      stopped = true;
    });
    await h.advance(4_999);
    expect(stopped).toBe(false);
    await h.advance(1);
    await stopping;
    expect(stopped).toBe(true);
    const abandoned = h.logger.named('jobs.worker.drain-abandoned');
    expect(abandoned).toHaveLength(1);
    expect(abandoned[0]?.fields).toMatchObject({ jobIds: [id] });
    const held = await h.driver.get(id);
    expect(held?.state).toBe('running');

    // the stopped worker renews nothing: the lease lapses and the queue delivers the job again, counted
    await h.advance(10_000);
    expect((await h.driver.get(id))?.leaseExpiresAt).toBe(held?.leaseExpiresAt);
    const next = harnessWorker(h, 'replacement');
    workers.push(next);
    await next.start();
    await h.settle();
    expect(calls).toBe(2);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 2 });
    expect(h.logger.named('jobs.lease.lost')).toHaveLength(0);

    working.open();
    await h.settle();
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 2 });
    expect(h.metrics.total('default', 'ok')).toBe(1);
  });

  it('a drain whose bodies unwind stops before its deadline and abandons nothing', async () => {
    const handle = job({
      name: 'drain.unwinds',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ signal }) => untilAborted(signal),
    });
    const h = await runJobs({ jobs: [handle] });
    harnesses.push(h);
    await handle.enqueue({ n: 1 });
    await handle.enqueue({ n: 2 });
    await h.settle();
    expect(h.worker.stats().inFlight).toBe(2);

    h.worker.beginDrain('SIGTERM');
    await h.worker.stop(h.clock.now() + 25_000);
    expect(h.clock.pending()).toBe(0);
    expect(h.worker.stats()).toMatchObject({ interrupted: 2, inFlight: 0 });
    expect(h.logger.named('jobs.worker.drain-abandoned')).toHaveLength(0);
    expect(h.logger.named('jobs.worker.draining')[0]?.fields).toMatchObject({
      signal: 'SIGTERM',
      inFlight: 2,
    });
  });
});
