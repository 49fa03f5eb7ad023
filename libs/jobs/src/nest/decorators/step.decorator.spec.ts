import { job } from '../../declare/job';
import { t } from '../../schema';
import { runJobs } from '../../testing/run-jobs';
import { Step } from './step.decorator';

class Billing {
  charges = 0;

  @Step({ name: (accountId: string) => `charge:${accountId}` })
  charge(accountId: string): Promise<{ accountId: string; n: number }> {
    this.charges++;
    return Promise.resolve({ accountId, n: this.charges });
  }

  @Step('audit')
  audit(): string {
    return 'audited';
  }
}

describe('@Step', () => {
  it('is a plain call outside a run', async () => {
    const billing = new Billing();
    await billing.charge('a');
    await billing.charge('a');
    expect(billing.charges).toBe(2);
    expect(billing.audit()).toBe('audited');
  });

  it('is a durable step inside a run: a retry replays it without calling the method', async () => {
    const billing = new Billing();
    let attempts = 0;
    const chargeJob = job({
      name: 'step-decorator-charge',
      input: t.object({ accountId: t.string }),
      idempotencyKey: ({ accountId }) => accountId,
      tenant: 'none',
      retry: { attempts: 3, jitter: false },
      async run({ input }) {
        attempts++;
        const first = await billing.charge(input.accountId);
        await billing.audit();
        if (attempts === 1) throw new Error('crash after the charge');
        return first;
      },
    });
    const h = await runJobs({ jobs: [chargeJob] });
    const { id } = await chargeJob.enqueue({ accountId: 'acct-1' });
    await h.settle();
    await h.advance(1_000);
    expect((await h.driver.get(id))?.state).toBe('done');
    expect(attempts).toBe(2);
    expect(billing.charges).toBe(1);
    expect((await h.driver.steps.load(id)).map((s) => s.name)).toEqual(['charge:acct-1', 'audit']);
    await h.close();
  });
});
