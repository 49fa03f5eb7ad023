import { job } from '../declare/job';
import type { StepApi } from '../declare/run-args';
import { JobsError, errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { parseDuration, type Duration } from '../util/duration';

const input = t.object({ n: t.number });

/** A job whose body calls `call(step)` once and records what it threw. */
function stepJob(name: string, call: (step: StepApi) => Promise<unknown>) {
  const seen: { thrown?: unknown } = {};
  const handle = job({
    name,
    input,
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    retry: { attempts: 5 },
    async run({ step }) {
      try {
        await call(step);
      } catch (error) {
        seen.thrown = error;
        throw error;
      }
    },
  });
  return { handle, seen };
}

describe('durations a step is handed', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("step.sleep('2 days') is X_STEP_DURATION_INVALID at the call: named value, accepted forms, terminal, nothing written", async () => {
    const { handle, seen } = stepJob('durations.sleep', (step) => step.sleep('2 days' as Duration));
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(errorCodeOf(seen.thrown)).toBe('X_STEP_DURATION_INVALID');
    const error = seen.thrown as JobsError;
    expect(error.message).toContain('step.sleep duration "2 days" is not a duration');
    expect(error.fix).toContain("unit ms, s, m, h, d or w and no space — '250ms', '10s'");
    expect(error.meta).toEqual({ step: 'sleep:2 days', field: 'step.sleep duration' });
    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toContain('terminal: X_STEP_DURATION_INVALID');
    expect(await h.driver.steps.load(id)).toEqual([]);
  });

  it.each<[string, unknown]>([
    ['a named sleep with a word for a unit', '3 weeks'],
    ['a negative number', -1],
    ['NaN', Number.NaN],
    ['an unknown unit', '5y'],
  ])('step.sleep(name, %s) is X_STEP_DURATION_INVALID', async (label, value) => {
    const { handle, seen } = stepJob(`durations.named.${label.replace(/\W+/g, '-')}`, (step) =>
      step.sleep('nap', value as Duration),
    );
    h = await runJobs({ jobs: [handle] });
    await handle.enqueue({ n: 1 });
    await h.settle();
    expect(errorCodeOf(seen.thrown)).toBe('X_STEP_DURATION_INVALID');
    expect((seen.thrown as JobsError).meta['step']).toBe('nap');
  });

  it('a waitForEvent timeout that does not parse is refused at the call, never read as "no timeout"', async () => {
    const { handle, seen } = stepJob('durations.wait', (step) =>
      step.waitForEvent('approval', 'order.approved', { timeout: '1 hour' as Duration }),
    );
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(errorCodeOf(seen.thrown)).toBe('X_STEP_DURATION_INVALID');
    expect((seen.thrown as JobsError).message).toContain(
      'waitForEvent timeout "1 hour" is not a duration',
    );
    expect(await h.driver.get(id)).toMatchObject({ state: 'dead', attempt: 1 });
    expect(await h.driver.steps.load(id)).toEqual([]);
  });

  it('step.sleep(name, 1.5) sleeps 2 ms and the run goes on: the wake time is a whole millisecond', async () => {
    const { handle } = stepJob('durations.fraction', async (step) => {
      await step.sleep('nap', 1.5);
      await step.run('after', () => 'woke');
    });
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    const start = h.clock.now();
    expect(await h.driver.get(id)).toMatchObject({ state: 'suspended', runAt: start + 2 });
    expect((await h.driver.steps.load(id))[0]?.output).toEqual({ wakeAt: start + 2 });
    await h.advance(2);
    expect(h.logger.named('jobs.attempt.failed')).toEqual([]);
    expect((await h.driver.get(id))?.state).toBe('done');
    expect(h.clock.now()).toBe(start + 2);
  });

  it('parseDuration accepts the forms the error names and refuses a spaced unit', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration(' 3d ')).toBe(259_200_000);
    expect(parseDuration(0)).toBe(0);
    expect(parseDuration('2w')).toBe(1_209_600_000);
    // a fraction of a millisecond is rounded to the nearest whole one
    expect(parseDuration('2.5ms')).toBe(3);
    expect(parseDuration('0.0004s')).toBe(0);
    expect(parseDuration('2 days')).toBeUndefined();
    expect(parseDuration('10 s')).toBeUndefined();
  });
});

describe('durations fixed where they are declared or enqueued', () => {
  it.each<[string, Record<string, unknown>]>([
    ['timeout', { timeout: '2 days' }],
    ['stepTimeout', { stepTimeout: '1 minute' }],
    ['eventPoll', { eventPoll: 'soon' }],
  ])('job({ %s }) that does not parse fails at the declaration', (field, extra) => {
    const declare = (): unknown =>
      job({
        name: `durations.declared.${field}`,
        input,
        idempotencyKey: ({ n }) => `n:${n}`,
        tenant: 'none',
        ...extra,
      });
    expect(declare).toThrow(expect.objectContaining({ code: 'X_JOB_DECLARATION_INVALID' }));
    expect(declare).toThrow(`${field} must be a positive duration`);
  });

  it('an enqueue delay that does not parse fails at the enqueue, before anything is queued', async () => {
    const handle = job({
      name: 'durations.delay',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => undefined,
    });
    const h = await runJobs({ jobs: [handle] });
    try {
      const refused = handle.enqueue({ n: 1 }, { delay: '5 minutes' as Duration });
      await expect(refused).rejects.toThrow(
        expect.objectContaining({ code: 'X_JOB_OPTIONS_INVALID' }),
      );
      await expect(refused).rejects.toThrow('options.delay "5 minutes" is not a duration: pass');
      const queued = (await h.driver.stats()).reduce((n, q) => n + q.ready + q.delayed, 0);
      expect(queued).toBe(0);
    } finally {
      await h.close();
    }
  });
});
