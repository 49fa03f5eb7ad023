import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs } from '../testing/run-jobs';

const DAY = 86_400_000;

describe('the opening scenario: steps replay, a sleep holds no process', () => {
  it('replays provision from storage, re-sends only the email, and nudges after three days', async () => {
    const calls = { provision: 0, email: 0, nudge: 0 };
    const onboard = job({
      name: 'scenario-onboard-org',
      input: t.object({ orgId: t.uuid }),
      idempotencyKey: ({ orgId }) => `onboard:${orgId}`,
      tenant: ({ orgId }) => orgId,
      retry: { attempts: 5, backoff: 'exponential', jitter: false },
      async run({ input, step, ctx }) {
        const org = await step.run('provision', () => {
          calls.provision++;
          return { id: input.orgId, actorOrg: ctx.actor.orgId };
        });
        await step.run('welcome-email', () => {
          calls.email++;
          if (calls.email === 1) throw new Error('SMTP down');
          return `sent to ${org.id}`;
        });
        await step.sleep('3d');
        await step.run('nudge', () => {
          calls.nudge++;
        });
      },
    });
    // Three simulated days fire every idle poll on the way; a one-minute ceiling (enqueues and due times still wake
    // the worker at once) keeps that to 4,320 passes instead of 130,000, which took 10 s of CPU on a quiet machine.
    const h = await runJobs({ jobs: [onboard], idlePollMaxMs: 60_000 });
    const orgId = '0190a0a0-0000-7000-8000-000000000001';
    const { id } = await onboard.enqueue({ orgId });
    await h.settle();

    let row = await h.driver.get(id);
    expect(row?.state).toBe('delayed'); // attempt 1 failed on welcome-email and backs off 1 s
    expect(row?.attempt).toBe(1);
    expect(row?.lastError).toContain('SMTP down');
    expect(calls).toEqual({ provision: 1, email: 1, nudge: 0 });

    await h.advance(1_000);
    row = await h.driver.get(id);
    expect(row?.state).toBe('suspended');
    expect(row?.attempt).toBe(1); // the suspension handed attempt 2 back uncounted
    expect(calls).toEqual({ provision: 1, email: 2, nudge: 0 });
    expect(h.worker.stats().inFlight).toBe(0); // no process held

    await h.advance(3 * DAY - 2_000);
    expect((await h.driver.get(id))?.state).toBe('suspended');
    expect(calls.nudge).toBe(0);

    await h.advance(2_000 + 5_000);
    row = await h.driver.get(id);
    expect(row?.state).toBe('done');
    expect(calls).toEqual({ provision: 1, email: 2, nudge: 1 });
    const steps = await h.driver.steps.load(id);
    expect(steps.map((s) => s.name)).toEqual(['provision', 'welcome-email', 'sleep:3d', 'nudge']);
    expect(steps[0]?.output).toEqual({ id: orgId, actorOrg: orgId });
    expect(h.metrics.total('default', 'ok')).toBe(1);
    expect(h.metrics.total('default', 'failed')).toBe(1);
    await h.close();
  });
});
