/**
 * The app the `x` CLI specs operate: its jobs run in the spec's own process (a worker over the spec's backend), and
 * `x … --app libs/jobs/test/x-cli/app.ts` loads the same declarations in the CLI's process for the manifest, the
 * redaction and the tasks.
 */
import { job, t, task } from '@ultimat3/jobs';

/** What the spec steers and observes in its own process (the CLI process never runs a body). */
export const behaviour = {
  /** Step c throws while true. */
  failC: true,
  /** Steps run, in order. */
  calls: [] as string[],
  /** Block runs whose body saw its signal abort. */
  aborted: [] as string[],
};

/** Three steps, a secret in the input; c fails until told not to. One attempt: a failure dead-letters it. */
export const xCliSteps = job({
  name: 'x-cli.steps',
  queue: 'x-cli',
  input: t.object({ order: t.string, card: t.object({ number: t.string, last4: t.string }) }),
  idempotencyKey: ({ order }) => order,
  tenant: 'none',
  retry: { attempts: 1 },
  redact: ['card.number'],
  async run({ input, step, progress }) {
    await step.run('a', async () => {
      behaviour.calls.push('a');
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { reserved: true };
    });
    progress(1, 3, 'reserved');
    await step.run('b', () => {
      behaviour.calls.push('b');
      return Promise.resolve();
    });
    progress(2, 3, 'charged');
    await step.run('c', () => {
      behaviour.calls.push('c');
      // the number in the message, as careless code writes it: the CLI shows it scrubbed (--app)
      if (behaviour.failC) throw new Error(`card ${input.card.number} declined by the issuer`);
      return Promise.resolve('receipt');
    });
  },
});

/** Runs until its signal aborts (a cancel reaches it at its next heartbeat). */
export const xCliBlock = job({
  name: 'x-cli.block',
  queue: 'x-cli-block',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `block:${n}`,
  tenant: 'none',
  retry: { attempts: 1 },
  async run({ input, signal }) {
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    // the body returns normally: the worker's settle of this attempt is what must not land
    behaviour.aborted.push(String(input.n));
  },
});

/** A nightly task over the steps job. */
export const xCliNightly = task({
  name: 'x-cli.nightly',
  cron: '0 3 * * *',
  tz: 'UTC',
  enqueue: (occurrenceMs) => [
    [xCliSteps, { order: `nightly:${occurrenceMs}`, card: { number: '0', last4: '0' } }],
  ],
});
