import { job } from '../declare/job';
import { errorCodeOf } from '../errors/jobs-error';
import { publishEvent, resetEventBus } from '../events/publish-event';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';

const ORDER = '0190a0a0-0000-7000-8000-0000000000c1';
const OTHER = '0190a0a0-0000-7000-8000-0000000000c2';

interface Approval {
  readonly orderId: string;
  readonly by: string;
}

describe('step.waitForEvent', () => {
  const answers: Approval[] = [];
  const approval = job({
    name: 'events.await-approval',
    input: t.object({ orderId: t.uuid }),
    idempotencyKey: ({ orderId }) => `approve:${orderId}`,
    tenant: 'none',
    eventPoll: '10s',
    retry: { attempts: 1 },
    async run({ input, step }) {
      const answer = await step.waitForEvent<Approval>('approval', 'order.approved', {
        match: (p) => p.orderId === input.orderId,
        timeout: '1m',
      });
      answers.push(answer);
      return answer.by;
    },
  });

  let h: JobsHarness;
  beforeEach(async () => {
    answers.length = 0;
    h = await runJobs({ jobs: [approval] });
  });
  afterEach(async () => {
    await resetEventBus();
    await h.close();
  });

  it('suspends, and a matching publishEvent resumes it with the payload after the eventPoll', async () => {
    const { id } = await approval.enqueue({ orderId: ORDER });
    await h.settle();
    expect(await h.driver.get(id)).toMatchObject({
      state: 'suspended',
      attempt: 0,
      runAt: h.clock.now() + 10_000,
    });
    expect(h.worker.stats()).toMatchObject({ suspended: 1, inFlight: 0 });

    await h.advance(3_000);
    await publishEvent('order.approved', { orderId: ORDER, by: 'alice' });
    await h.advance(6_999);
    expect((await h.driver.get(id))?.state).toBe('suspended');
    expect(answers).toEqual([]);

    await h.advance(1);
    expect(answers).toEqual([{ orderId: ORDER, by: 'alice' }]);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    const steps = await h.driver.steps.load(id);
    expect(steps.map((s) => s.name)).toEqual(['approval', 'approval#event']);
    expect(steps[1]?.output).toEqual({ orderId: ORDER, by: 'alice' });
    expect(h.metrics.total('default', 'ok')).toBe(1);
    expect(h.metrics.total('default', 'failed')).toBe(0);
  });

  it('an event that does not match leaves the run waiting', async () => {
    const { id } = await approval.enqueue({ orderId: ORDER });
    await h.settle();
    await publishEvent('order.approved', { orderId: OTHER, by: 'mallory' });
    await publishEvent('order.rejected', { orderId: ORDER, by: 'mallory' });
    await h.advance(20_000);
    expect((await h.driver.get(id))?.state).toBe('suspended');
    expect(answers).toEqual([]);

    await publishEvent('order.approved', { orderId: ORDER, by: 'bob' });
    await h.advance(10_000);
    expect(answers).toEqual([{ orderId: ORDER, by: 'bob' }]);
    expect((await h.driver.get(id))?.state).toBe('done');
  });

  it('past its timeout the wait fails the attempt with X_JOB_TIMEOUT', async () => {
    const { id } = await approval.enqueue({ orderId: ORDER });
    await h.settle();
    await h.advance(59_999);
    expect((await h.driver.get(id))?.state).toBe('suspended');

    await h.advance(1);
    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toMatch(/^X_JOB_TIMEOUT/);
    expect(h.logger.named('jobs.attempt.failed')[0]?.fields).toMatchObject({
      code: 'X_JOB_TIMEOUT',
    });
    expect(answers).toEqual([]);
  });

  it('an event published before the wait began does not count', async () => {
    await publishEvent('order.approved', { orderId: ORDER, by: 'early' });
    await h.advance(1_000);
    const { id } = await approval.enqueue({ orderId: ORDER });
    await h.settle();
    await h.advance(30_000);
    expect((await h.driver.get(id))?.state).toBe('suspended');
    expect(answers).toEqual([]);

    await publishEvent('order.approved', { orderId: ORDER, by: 'late' });
    await h.advance(10_000);
    expect(answers).toEqual([{ orderId: ORDER, by: 'late' }]);
  });

  it('resetEventBus forgets what was published', async () => {
    const { id } = await approval.enqueue({ orderId: ORDER });
    await h.settle();
    await publishEvent('order.approved', { orderId: ORDER, by: 'forgotten' });
    await resetEventBus();
    await h.advance(20_000);
    expect((await h.driver.get(id))?.state).toBe('suspended');
    expect(answers).toEqual([]);
    expect(await h.events.find('order.approved', 0)).toBeUndefined();
  });
});

describe('step.waitForEvent: what a replay sees', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await resetEventBus();
    await h?.close();
    h = undefined;
  });

  it('a timeout the body caught is the verdict on every replay, whatever is published after it', async () => {
    const seen: string[] = [];
    const reminder = job({
      name: 'events.caught-timeout',
      input: t.object({ orderId: t.uuid }),
      idempotencyKey: ({ orderId }) => `remind:${orderId}`,
      tenant: 'none',
      eventPoll: '10s',
      retry: { attempts: 1 },
      async run({ step }) {
        const by = await step
          .waitForEvent<Approval>('approval', 'order.approved', { timeout: '1m' })
          .then(
            (answer) => answer.by,
            (error: unknown) => {
              if (errorCodeOf(error) !== 'X_JOB_TIMEOUT') throw error;
              return 'nobody';
            },
          );
        seen.push(`before the sleep: ${by}`);
        await step.sleep('1h');
        seen.push(`after the sleep: ${by}`);
      },
    });
    h = await runJobs({ jobs: [reminder], idlePollMaxMs: 60_000 });
    const { id } = await reminder.enqueue({ orderId: ORDER });
    await h.settle();
    await h.advance(60_000);
    expect(seen).toEqual(['before the sleep: nobody']);

    await publishEvent('order.approved', { orderId: ORDER, by: 'too late' });
    await h.advance(3_600_000);
    expect(seen).toEqual([
      'before the sleep: nobody',
      'before the sleep: nobody',
      'after the sleep: nobody',
    ]);
    expect((await h.driver.get(id))?.state).toBe('done');
    const answer = (await h.driver.steps.load(id)).find((s) => s.name === 'approval#event');
    expect(answer).toBeDefined();
    expect(answer).not.toHaveProperty('output');
  });

  it('a step named after a wait\'s answer record ("approval#event") is X_STEP_DUPLICATE, never replayed as the answer', async () => {
    const seen: unknown[] = [];
    const clash = job({
      name: 'events.answer-clash',
      input: t.object({ orderId: t.uuid }),
      idempotencyKey: ({ orderId }) => `clash:${orderId}`,
      tenant: 'none',
      retry: { attempts: 3 },
      async run({ step }) {
        seen.push(await step.run('approval#event', () => ({ mine: true })));
        seen.push(await step.waitForEvent('approval', 'order.approved'));
      },
    });
    h = await runJobs({ jobs: [clash] });
    const { id } = await clash.enqueue({ orderId: ORDER });
    await h.settle();
    expect(seen).toEqual([{ mine: true }]);
    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toContain('X_STEP_DUPLICATE');
  });
});
