import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import type { JobSettled } from '../declare/run-args';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { untilAborted } from '../testing/test-kit';
import { harnessSlot } from '../../test/harness-slot';
import { LEASE_LAPSED_FINAL_ATTEMPT } from '../worker/claim-exhausted';
import { registerErrorRetry } from './error-retry';

const ORG = '0190a0a0-0000-7000-8000-0000000000a1';
const input = t.object({ orgId: t.uuid, n: t.number });

/** An error the way an app throws one: a plain Error carrying a code. */
function coded(code: string): Error {
  return Object.assign(new Error(`failed with ${code}`), { code });
}

describe('the outcome table: one attempt, one row state, one jobs_total label', () => {
  const { start } = harnessSlot();

  it('completed: the row is done, counted ok, and onSettled is told the input and the result', async () => {
    const settled: JobSettled<{ orgId: string; n: number }, { doubled: number }>[] = [];
    const handle = job({
      name: 'outcomes.completed',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      run: ({ input: i }) => ({ doubled: i.n * 2 }),
      onSettled: (s) => void settled.push(s),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 21 });
    await h.settle();

    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1, lastError: null });
    expect(h.worker.stats()).toMatchObject({ completed: 1, retried: 0, deadLettered: 0 });
    expect(h.metrics.total('default', 'ok')).toBe(1);
    expect(h.metrics.total('default', 'failed')).toBe(0);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      outcome: 'completed',
      jobId: id,
      input: { orgId: ORG, n: 21 },
      result: { doubled: 42 },
    });
  });

  it('suspended: a step.sleep parks the row uncounted, counts nothing and tells nobody', async () => {
    let hooks = 0;
    const handle = job({
      name: 'outcomes.suspended',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      async run({ step }) {
        await step.sleep('nap', '1h');
      },
      onSettled: () => void hooks++,
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();

    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'suspended', attempt: 0, runAt: h.clock.now() + 3_600_000 });
    expect(h.worker.stats()).toMatchObject({ suspended: 1, inFlight: 0 });
    expect([...h.metrics.totals.values()]).toEqual([]);
    expect(hooks).toBe(0);
  });

  it('retried: the row backs off delayed, counted failed, and nobody is told', async () => {
    let hooks = 0;
    const handle = job({
      name: 'outcomes.retried',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      retry: { attempts: 3, backoff: 'fixed', delay: 5_000, jitter: false },
      run: () => {
        throw coded('X_TEST_FLAKY');
      },
      onSettled: () => void hooks++,
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();

    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'delayed', attempt: 1, runAt: h.clock.now() + 5_000 });
    expect(row?.lastError).toContain('X_TEST_FLAKY');
    expect(h.worker.stats()).toMatchObject({ retried: 1, deadLettered: 0 });
    expect(h.metrics.total('default', 'failed')).toBe(1);
    expect(h.metrics.total('default', 'dead')).toBe(0);
    expect(hooks).toBe(0);
    expect(h.logger.named('jobs.attempt.failed')[0]?.fields).toMatchObject({
      outcome: 'retried',
      code: 'X_TEST_FLAKY',
      retryInMs: 5_000,
    });
  });

  it('dead-lettered: the last attempt failing parks the row dead, counted dead, told once with the code', async () => {
    const settled: JobSettled<{ orgId: string; n: number }, unknown>[] = [];
    const handle = job({
      name: 'outcomes.exhausted',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      retry: { attempts: 2, backoff: 'fixed', delay: 1_000, jitter: false },
      run: () => {
        throw coded('X_TEST_BOOM');
      },
      onSettled: (s) => void settled.push(s),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 7 });
    await h.settle();
    await h.advance(1_000);

    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 2 });
    expect(row?.lastError).toContain('X_TEST_BOOM');
    expect(h.worker.stats()).toMatchObject({ retried: 1, deadLettered: 1 });
    expect(h.metrics.total('default', 'failed')).toBe(1);
    expect(h.metrics.total('default', 'dead')).toBe(1);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      outcome: 'dead-lettered',
      jobId: id,
      code: 'X_TEST_BOOM',
      input: { orgId: ORG, n: 7 },
    });
    expect(h.logger.named('jobs.attempt.failed').map((e) => e.fields.stop)).toEqual([
      undefined,
      'attempts-exhausted',
    ]);
  });

  it('dead-lettered by a terminal code on attempt 1 of 5: the verdict is on the row and in the log', async () => {
    registerErrorRetry({ X_TEST_TERMINAL: 'terminal' });
    const settled: JobSettled<{ orgId: string; n: number }, unknown>[] = [];
    const handle = job({
      name: 'outcomes.terminal',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      retry: { attempts: 5 },
      run: () => {
        throw coded('X_TEST_TERMINAL');
      },
      onSettled: (s) => void settled.push(s),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();

    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1, maxAttempts: 5 });
    expect(row?.lastError).toContain('terminal: X_TEST_TERMINAL');
    expect(row?.lastError).toContain('attempt 1 of 5');
    expect(h.worker.stats()).toMatchObject({ deadLettered: 1, retried: 0 });
    expect(h.metrics.total('default', 'dead')).toBe(1);
    expect(h.metrics.total('default', 'failed')).toBe(0);
    expect(settled.map((s) => [s.outcome, s.outcome === 'completed' ? null : s.code])).toEqual([
      ['dead-lettered', 'X_TEST_TERMINAL'],
    ]);
    const failed = h.logger.named('jobs.attempt.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      level: 'error',
      fields: { stop: 'terminal', outcome: 'dead-lettered', code: 'X_TEST_TERMINAL' },
    });
  });

  it('dropped: retry.deadLetter false settles the row failed, counted failed, told dropped', async () => {
    const settled: JobSettled<{ orgId: string; n: number }, unknown>[] = [];
    const handle = job({
      name: 'outcomes.dropped',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      retry: { attempts: 1, deadLetter: false },
      run: () => {
        throw coded('X_TEST_GONE');
      },
      onSettled: (s) => void settled.push(s),
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();

    expect(await h.driver.get(id)).toMatchObject({ state: 'failed', attempt: 1 });
    expect(h.worker.stats()).toMatchObject({ dropped: 1, deadLettered: 0 });
    expect(h.metrics.total('default', 'failed')).toBe(1);
    expect(h.metrics.total('default', 'dead')).toBe(0);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ outcome: 'dropped', code: 'X_TEST_GONE', jobId: id });
  });

  it('interrupted: a drain hands the row back ready with the attempt uncounted, counts nothing, tells nobody', async () => {
    let hooks = 0;
    let reason: unknown;
    const handle = job({
      name: 'outcomes.interrupted',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      retry: { attempts: 1 },
      async run({ ctx }) {
        try {
          await untilAborted(ctx.signal);
        } catch (error) {
          reason = error;
          throw error;
        }
      },
      onSettled: () => void hooks++,
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('running');

    h.worker.beginDrain('SIGTERM');
    await h.settle();

    expect(errorCodeOf(reason)).toBe('X_DRAINING');
    expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0, workerId: null });
    expect(h.worker.stats()).toMatchObject({ interrupted: 1, retried: 0, deadLettered: 0 });
    expect([...h.metrics.totals.values()]).toEqual([]);
    expect(hooks).toBe(0);
    expect(h.logger.named('jobs.attempt.interrupted')).toHaveLength(1);
  });

  it.each([
    { deadLetter: true, state: 'dead', outcome: 'dead-lettered', total: 'dead' },
    { deadLetter: false, state: 'failed', outcome: 'dropped', total: 'failed' },
  ] as const)(
    'a lease that lapses on the final attempt is buried by the next claim: $state, told $outcome once',
    async ({ deadLetter, state, outcome, total }) => {
      const settled: JobSettled<{ orgId: string; n: number }, unknown>[] = [];
      let ran = 0;
      const handle = job({
        name: `outcomes.lapsed.${state}`,
        input,
        idempotencyKey: ({ n }) => `n:${n}`,
        tenant: ({ orgId }) => orgId,
        retry: { attempts: 1, deadLetter },
        run: () => void ran++,
        onSettled: (s) => void settled.push(s),
      });
      const h = await start({ jobs: [handle] });
      // Enqueued straight on the driver, so the worker is not woken: a worker that then "dies" claims it first.
      const request = await prepareEnqueue(
        handle,
        { orgId: ORG, n: 3 },
        {},
        undefined,
        h.clock.now(),
      );
      await h.driver.enqueue(request);
      const [doomed] = await h.driver.claim({
        workerId: 'doomed-worker',
        slots: [{ queue: 'default', limit: 1 }],
        visibilityTimeoutMs: 10,
      });
      expect(doomed?.attempt).toBe(1);

      await h.advance(5_000);

      const row = await h.driver.get(request.id);
      expect(row).toMatchObject({ state, lastError: LEASE_LAPSED_FINAL_ATTEMPT, attempt: 1 });
      expect(ran).toBe(0);
      expect(h.worker.stats().claimed).toBe(0);
      expect(h.metrics.total('default', total)).toBe(1);
      expect([...h.metrics.totals.values()]).toEqual([1]);
      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({
        outcome,
        jobId: request.id,
        code: undefined,
        error: LEASE_LAPSED_FINAL_ATTEMPT,
        input: { orgId: ORG, n: 3 },
      });
      expect(settled[0]?.ctx.actor.orgId).toBe(ORG);
      expect(h.logger.named('jobs.claim.exhausted')).toHaveLength(1);
      expect(h.logger.named('jobs.claim.exhausted')[0]?.fields).toMatchObject({ outcome });
    },
  );
});
