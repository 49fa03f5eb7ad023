import { job } from '../declare/job';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { harnessSlot } from '../../test/harness-slot';
import { gate, untilAborted } from '../testing/test-kit';

const input = t.object({ n: t.number });

describe('the deadline cancels', () => {
  const { start } = harnessSlot();

  it('fails the attempt at its timeout, fences the body that ignores the signal, and logs it abandoned', async () => {
    const working = gate();
    const seen: { reason?: unknown; late?: unknown; lateCalled: boolean } = { lateCalled: false };
    const handle = job({
      name: 'deadlines.ignores-signal',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      timeout: '10s',
      retry: { attempts: 2, backoff: 'fixed', delay: 60_000, jitter: false },
      async run({ step, ctx }) {
        await step.run('early', () => 'stored');
        await working.promise; // ignores ctx.signal
        seen.reason = ctx.signal.reason;
        try {
          await step.run('late', () => {
            seen.lateCalled = true;
            return 'never stored';
          });
        } catch (error) {
          seen.late = error;
        }
        return 'finished anyway';
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    await h.advance(9_999);
    expect((await h.driver.get(id))?.state).toBe('running');

    await h.advance(1);
    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'delayed', attempt: 1, runAt: h.clock.now() + 60_000 });
    expect(row?.lastError).toMatch(/^X_JOB_TIMEOUT/);
    expect(h.worker.stats()).toMatchObject({ retried: 1, inFlight: 0 });
    expect(h.metrics.total('default', 'failed')).toBe(1);
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(0);

    working.open();
    await h.settle();
    expect(errorCodeOf(seen.reason)).toBe('X_JOB_TIMEOUT');
    expect(errorCodeOf(seen.late)).toBe('X_ABORTED');
    expect(seen.lateCalled).toBe(false);
    expect((await h.driver.steps.load(id)).map((s) => s.name)).toEqual(['early']);
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(1);
    expect(h.logger.named('jobs.timeout.abandoned')[0]?.fields).toMatchObject({
      jobId: id,
      cause: 'timeout',
    });
    // the late return settles nothing: the row stays where the deadline put it
    expect(await h.driver.get(id)).toMatchObject({ state: 'delayed', attempt: 1 });
    expect(h.metrics.total('default', 'ok')).toBe(0);
  });

  it('dead-letters at the deadline of the final attempt', async () => {
    const working = gate();
    const handle = job({
      name: 'deadlines.final',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      timeout: '5s',
      retry: { attempts: 1 },
      run: () => working.promise,
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    await h.advance(5_000);

    expect(await h.driver.get(id)).toMatchObject({ state: 'dead', attempt: 1 });
    expect(h.metrics.total('default', 'dead')).toBe(1);
    expect(h.logger.named('jobs.attempt.failed')[0]?.fields).toMatchObject({
      code: 'X_JOB_TIMEOUT',
      stop: 'attempts-exhausted',
    });
    working.open();
    await h.settle();
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(1);
  });

  it('a body that honours the signal is not logged abandoned', async () => {
    const reasons: unknown[] = [];
    const handle = job({
      name: 'deadlines.honours-signal',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      timeout: '10s',
      retry: { attempts: 1 },
      async run({ signal }) {
        try {
          await untilAborted(signal);
        } catch (error) {
          reasons.push(error);
          throw error;
        }
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    await h.advance(10_000);

    expect(reasons.map(errorCodeOf)).toEqual(['X_JOB_TIMEOUT']);
    expect((await h.driver.get(id))?.state).toBe('dead');
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(0);
  });

  it('stepTimeout fails one slow step with X_JOB_TIMEOUT and stores nothing for it', async () => {
    const slow = gate();
    const stepReasons: unknown[] = [];
    const handle = job({
      name: 'deadlines.step-timeout',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      stepTimeout: '2s',
      retry: { attempts: 1 },
      async run({ step }) {
        await step.run('quick', () => 1);
        await step.run('slow', async (signal) => {
          signal.addEventListener('abort', () => stepReasons.push(signal.reason));
          await slow.promise;
          return 2;
        });
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    await h.advance(1_999);
    expect((await h.driver.get(id))?.state).toBe('running');

    await h.advance(1);
    const row = await h.driver.get(id);
    expect(row?.state).toBe('dead');
    expect(row?.lastError).toMatch(/^X_JOB_TIMEOUT/);
    expect(stepReasons.map(errorCodeOf)).toEqual(['X_JOB_TIMEOUT']);

    slow.open();
    await h.settle();
    expect((await h.driver.steps.load(id)).map((s) => s.name)).toEqual(['quick']);
    // a step's ceiling cancels the step, not the run: the run is not logged abandoned
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(0);
  });

  it('a drained body that ignores its signal is still handed on at the attempt deadline, uncounted', async () => {
    const working = gate();
    const handle = job({
      name: 'deadlines.drain-then-timeout',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      timeout: '10s',
      retry: { attempts: 1 },
      run: () => working.promise,
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    await h.advance(1_000);
    h.worker.beginDrain('SIGTERM');
    await h.advance(8_999);
    expect((await h.driver.get(id))?.state).toBe('running');

    await h.advance(1);
    expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });
    expect(h.worker.stats()).toMatchObject({ interrupted: 1, inFlight: 0 });
    expect([...h.metrics.totals.values()]).toEqual([]);

    working.open();
    await h.settle();
    expect(h.logger.named('jobs.timeout.abandoned')).toHaveLength(1);
    expect((await h.driver.get(id))?.state).toBe('ready');
  });
});
