import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { inspectManifest } from './declarations';
import { inspectJob } from './inspect-job';
import { scrubJson } from './redact';

describe('inspectJob redaction reaches every place the redacted values can reappear', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const email = 'alice@example.com';
  const pin = 98765;

  /** A job whose keys, other input fields and step outputs all carry what its `redact:` paths hide. */
  const welcome = job({
    name: 'inspect-redaction.welcome',
    input: t.object({ email: t.string, pin: t.number, subject: t.string }),
    idempotencyKey: ({ email: to }) => `welcome:${to}`,
    concurrency: { key: ({ email: to }) => `mailbox:${to}`, limit: 1 },
    tenant: 'none',
    retry: { attempts: 1 },
    redact: ['email', 'pin'],
    async run({ input, step }) {
      await step.run('send', () => Promise.resolve({ pin: input.pin, ok: true }));
    },
  });

  it('scrubs the idempotency key, the concurrency key, the rest of the input and numeric step outputs', async () => {
    h = await runJobs({ jobs: [welcome] });
    const { id } = await welcome.enqueue({ email, pin, subject: `Welcome, ${email}` });
    await h.advance(1_000);

    const view = await inspectJob(h.driver, id, {
      declarations: inspectManifest({ jobs: [welcome] }),
      outputs: true,
    });
    expect(view.state).toBe('done');
    expect(view.input).toEqual({
      email: '[redacted]',
      pin: '[redacted]',
      subject: 'Welcome, [redacted]',
    });
    expect(view.idempotencyKey).toBe('welcome:[redacted]');
    expect(view.concurrencyKey).toBe('mailbox:[redacted]');
    expect(view.steps.map((s) => [s.name, s.output])).toEqual([
      ['send', { pin: '[redacted]', ok: true }],
    ]);
    // the whole view, serialised, holds neither value anywhere
    expect(JSON.stringify(view)).not.toContain(email);
    expect(JSON.stringify(view)).not.toContain(String(pin));
    // the row keeps what was written: scrubbing is the view's
    expect((await h.driver.get(id))?.idempotencyKey).toBe(`welcome:${email}`);
  });

  it('scrubJson replaces a number that shows a secret, and keeps every other number as it is', () => {
    expect(scrubJson({ a: 98765, b: 5, c: [1098765] }, ['98765'])).toEqual({
      a: '[redacted]',
      b: 5,
      c: ['[redacted]'],
    });
  });
});
