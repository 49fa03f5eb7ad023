import { prepareEnqueue } from '../declare/enqueue';
import { job } from '../declare/job';
import type { JobSettled } from '../declare/run-args';
import type { JobState } from '../driver/job-row';
import { t } from '../schema';
import { type JobsHarness } from '../testing/run-jobs';
import { harnessSlot } from '../../test/harness-slot';
import { ON_SETTLED_ATTEMPTS } from './on-settled';
import { currentRun } from './run-context';
import { currentTenant } from './tenant';

const ORG = '0190a0a0-0000-7000-8000-0000000000b1';
const input = t.object({ orgId: t.uuid, n: t.number });
type Input = { orgId: string; n: number };

function coded(code: string): Error {
  return Object.assign(new Error(`failed with ${code}`), { code });
}

describe('onSettled: told once per ending, after the settle, under the tenant', () => {
  const { start } = harnessSlot();

  it.each([
    { label: 'completed', fails: false, deadLetter: true, state: 'done' },
    { label: 'dead-lettered', fails: true, deadLetter: true, state: 'dead' },
    { label: 'dropped', fails: true, deadLetter: false, state: 'failed' },
  ] as const)(
    'a $label run is told after its row is $state, under the declared org',
    async ({ label, fails, deadLetter, state }) => {
      const seen: { outcome: string; state: JobState | undefined; tenant: unknown }[] = [];
      const ref: { h?: JobsHarness } = {};
      const handle = job({
        name: `on-settled.after.${label}`,
        input,
        idempotencyKey: ({ n }) => `n:${n}`,
        tenant: ({ orgId }) => orgId,
        retry: { attempts: 1, deadLetter },
        run: () => {
          if (fails) throw coded('X_TEST_FAIL');
          return 'ok';
        },
        async onSettled(s) {
          const tenant = currentTenant();
          const row = await ref.h?.driver.get(s.jobId);
          seen.push({ outcome: s.outcome, state: row?.state, tenant });
        },
      });
      const h = await start({ jobs: [handle] });
      ref.h = h;
      await handle.enqueue({ orgId: ORG, n: 1 });
      await h.settle();

      expect(seen).toEqual([{ outcome: label, state, tenant: ORG }]);
    },
  );

  it('a hook of a tenant none job runs with no org', async () => {
    const tenants: unknown[] = [];
    const handle = job({
      name: 'on-settled.no-tenant',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => undefined,
      onSettled: (s) => void tenants.push(currentTenant(), s.ctx.actor.orgId),
    });
    const h = await start({ jobs: [handle] });
    await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();

    expect(tenants).toEqual([null, null]);
  });

  it('a hook that throws every time is tried three times, logged, and touches nothing', async () => {
    let tries = 0;
    const handle = job({
      name: 'on-settled.always-throws',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      run: () => 42,
      onSettled: () => {
        tries++;
        throw coded('X_TEST_HOOK');
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();

    expect(tries).toBe(ON_SETTLED_ATTEMPTS);
    expect(ON_SETTLED_ATTEMPTS).toBe(3);
    const failed = h.logger.named('jobs.on-settled.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      level: 'error',
      fields: { code: 'X_JOB_ON_SETTLED_FAILED', jobId: id, outcome: 'completed' },
    });
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1, lastError: null });
    expect(h.worker.stats()).toMatchObject({ completed: 1, retried: 0, deadLettered: 0 });
    expect(h.metrics.total('default', 'ok')).toBe(1);
    expect([...h.metrics.totals.values()]).toEqual([1]);
  });

  it('a hook that throws once and then succeeds runs twice and logs nothing', async () => {
    let tries = 0;
    const handle = job({
      name: 'on-settled.throws-once',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      run: () => 42,
      onSettled: () => {
        tries++;
        if (tries === 1) throw coded('X_TEST_HOOK');
      },
    });
    const h = await start({ jobs: [handle] });
    await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();

    expect(tries).toBe(2);
    expect(h.logger.named('jobs.on-settled.failed')).toHaveLength(0);
  });

  it('the hook has no durable steps: it runs after the settle', async () => {
    const codes: unknown[] = [];
    const handle = job({
      name: 'on-settled.no-steps',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      run: () => 1,
      async onSettled(s) {
        const steps = currentRun()?.step;
        const late = (e: unknown): number => codes.push((e as { code?: unknown }).code);
        await steps?.run('late', () => 1).catch(late);
        await steps?.sleep('nap', '10ms').catch(late);
        await steps?.waitForEvent('ev', 'paid').catch(late);
        codes.push(s.outcome);
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ orgId: ORG, n: 1 });
    await h.settle();

    expect(codes).toEqual(['X_INVARIANT', 'X_INVARIANT', 'X_INVARIANT', 'completed']);
    expect(await h.driver.steps.load(id)).toEqual([]);
  });

  it('a stored payload that no longer parses takes the ordinary retry path, and is told with no input at the end', async () => {
    const settled: JobSettled<Input, unknown>[] = [];
    let ran = 0;
    const handle = job({
      name: 'on-settled.unparseable',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: ({ orgId }) => orgId,
      retry: { attempts: 2, jitter: false },
      run: () => void ran++,
      onSettled: (s) => void settled.push(s),
    });
    const h = await start({ jobs: [handle] });
    const request = await prepareEnqueue(
      handle,
      { orgId: ORG, n: 1 },
      {},
      undefined,
      h.clock.now(),
    );
    // A payload written under an older schema: the declared one refuses it on every attempt.
    await h.driver.enqueue({ ...request, input: { orgId: 'not-a-uuid', n: 'one' } });
    h.worker.signalEnqueued('default');
    await h.settle();

    // The attempt fails without the body running and takes the ordinary retry path.
    expect(await h.driver.get(request.id)).toMatchObject({ state: 'delayed', attempt: 1 });
    expect(settled).toHaveLength(0);
    await h.advance(1_000);
    expect(ran).toBe(0);
    expect(await h.driver.get(request.id)).toMatchObject({ state: 'dead', attempt: 2 });
    expect(h.metrics.total('default', 'failed')).toBe(1);
    expect(h.metrics.total('default', 'dead')).toBe(1);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      outcome: 'dead-lettered',
      input: undefined,
      code: 'X_JOB_INPUT_INVALID',
    });
  });
});
