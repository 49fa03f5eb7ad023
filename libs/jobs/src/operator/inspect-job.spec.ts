import { job } from '../declare/job';
import { inspectBackfillOfJob } from '../backfill/inspect';
import { memoryBackfillLedger } from '../backfill/memory-ledger';
import type { JobRow } from '../driver/job-row';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { busyFor, thrownCode } from '../testing/test-kit';
import { uuidv7 } from '../util/ids';
import { inspectManifest } from './declarations';
import { inspectJob } from './inspect-job';
import { retryFromStep } from './job-actions';
import { failureOf } from './job-views';
import { inspectDeadLetters, listJobs } from './list-jobs';

describe('inspectJob', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A job whose steps a (300 ms) and b (1.2 s) complete and c throws until `fixed`, with a secret in its input. */
  let seq = 0;
  function charge() {
    seq += 1;
    const calls: string[] = [];
    const state = { fixed: false };
    const handle = job({
      name: `billing.charge.${seq}`,
      input: t.object({ orderId: t.string, card: t.object({ number: t.string, last4: t.string }) }),
      idempotencyKey: ({ orderId }) => orderId,
      tenant: 'none',
      retry: { attempts: 1 },
      redact: ['card.number'],
      async run({ step, progress }) {
        await step.run('a', async () => {
          calls.push('a');
          await busyFor(h!.clock, 300);
          return 'A';
        });
        progress(1, 3, 'reserved');
        await step.run('b', async () => {
          calls.push('b');
          await busyFor(h!.clock, 1_200);
        });
        progress(2, 3);
        await step.run('c', () => {
          calls.push('c');
          if (!state.fixed) throw new Error('card declined');
          return Promise.resolve('C');
        });
      },
    });
    return { handle, calls, state };
  }

  const input = { orderId: 'o-1', card: { number: '4242424242424242', last4: '4242' } };

  it("shows a dead job's step trace with durations, the failure, the last progress and the redacted input", async () => {
    const { handle } = charge();
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue(input);
    await h.advance(2_000);

    const view = await inspectJob(h.driver, id, {
      declarations: inspectManifest({ jobs: [handle] }),
    });
    expect(view).toMatchObject({
      id,
      name: `billing.charge.${seq}`,
      state: 'dead',
      attempt: 1,
      input: { orderId: 'o-1', card: { number: '[redacted]', last4: '4242' } },
      redacted: ['card.number'],
      progress: { done: 2, total: 3 },
      backfill: null,
    });
    expect(view.failure?.message).toContain('card declined');
    // the failure's stack: the thrown Error's frames, the first of them in this spec's step body
    expect(view.failure?.stack).toMatch(/^ {4}at .*inspect-job\.spec\.ts:\d+/);
    expect(view.steps.map((s) => [s.name, s.durationMs, s.hasOutput])).toEqual([
      ['a', 300, true],
      ['b', 1_200, false],
    ]);
    expect(view.steps[0]).not.toHaveProperty('output');
    expect(JSON.parse(JSON.stringify(view))).toEqual(view);
  });

  it('shows the input as stored when no declaration is given, and step outputs only when asked', async () => {
    const { handle } = charge();
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue(input);
    await h.advance(2_000);

    const view = await inspectJob(h.driver, id, { outputs: true });
    expect(view.input).toEqual(input);
    expect(view.redacted).toBeNull();
    expect(view.steps[0]).toMatchObject({ name: 'a', output: 'A' });
  });

  it('scrubs the redacted values from the failure, the progress note and the step outputs it shows', async () => {
    const number = '4111111111111111';
    const handle = job({
      name: 'billing.leaky',
      input: t.object({ orderId: t.string, card: t.object({ number: t.string, last4: t.string }) }),
      idempotencyKey: ({ orderId }) => orderId,
      tenant: 'none',
      retry: { attempts: 1 },
      redact: ['card'],
      async run({ input: given, step, progress }) {
        await step.run('echo', () => ({
          sent: `card ${given.card.number}`,
          [given.card.number]: 1,
        }));
        progress(1, 2, `charging ${given.card.number}`);
        throw new Error(`card ${given.card.number} declined`);
      },
    });
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue({ orderId: 'o-9', card: { number, last4: '1111' } });
    await h.advance(1_000);

    const declarations = inspectManifest({ jobs: [handle] });
    const view = await inspectJob(h.driver, id, { declarations, outputs: true });
    expect(view.state).toBe('dead');
    expect(view.input).toEqual({ orderId: 'o-9', card: '[redacted]' });
    expect(view.failure?.message).toBe('card [redacted] declined');
    expect(view.lastError).toContain('card [redacted] declined');
    expect(view.progress).toEqual({ done: 1, total: 2, note: 'charging [redacted]' });
    expect(view.steps[0]?.output).toEqual({ sent: 'card [redacted]', '[redacted]': 1 });
    // the whole view, serialised, holds the number nowhere; its last4 (a value under the redacted path too) neither
    expect(JSON.stringify(view)).not.toContain(number);
    expect(JSON.stringify(view)).not.toContain('1111');
    // the row keeps what the run wrote: scrubbing is the view's, for whoever reads it
    expect((await h.driver.get(id))?.lastError).toContain(number);
    // without the declaration nothing is known secret, and nothing is scrubbed
    expect((await inspectJob(h.driver, id, { outputs: true })).failure?.message).toBe(
      `card ${number} declined`,
    );
    // the lists show each row's error and progress note scrubbed alike
    for (const page of [
      await listJobs(h.driver, {}, { declarations }),
      await inspectDeadLetters(h.driver, {}, { declarations }),
    ]) {
      expect(page.jobs.map((row) => [row.id, row.progress?.note])).toEqual([
        [id, 'charging [redacted]'],
      ]);
      expect(JSON.stringify(page)).not.toContain(number);
    }
    expect(JSON.stringify(await listJobs(h.driver))).toContain(number);
  });

  it('fills the backfill slot with the ledger row of the pass the job runs, null for any other', async () => {
    const { handle } = charge();
    h = await runJobs({ jobs: [handle] });
    const { id, runId } = await handle.enqueue(input);
    const other = await handle.enqueue({ ...input, orderId: 'o-2' });
    await h.advance(4_000);
    const ledger = memoryBackfillLedger();
    await ledger.begin({
      id: uuidv7(),
      name: 'posts.slug',
      checksum: 'c1',
      appVersion: null,
      jobId: id,
      runId,
      nowMs: h.clock.now(),
    });
    const backfill = (row: JobRow) => inspectBackfillOfJob(ledger, row.id);

    expect((await inspectJob(h.driver, id, { backfill })).backfill).toMatchObject({
      name: 'posts.slug',
      jobId: id,
      status: 'running',
    });
    expect((await inspectJob(h.driver, other.id, { backfill })).backfill).toBeNull();
  });

  it('is X_JOB_NOT_FOUND for an id no queue holds', async () => {
    const driver = memoryJobDriver({ clock: frozenClock() });
    expect(await thrownCode(() => inspectJob(driver, '0194f3a2-0000-7000-8000-000000000000'))).toBe(
      'X_JOB_NOT_FOUND',
    );
  });

  it('retryFromStep redoes that step and the later ones; earlier steps replay from storage', async () => {
    const { handle, calls, state } = charge();
    h = await runJobs({ jobs: [handle] });
    const { id } = await handle.enqueue(input);
    await h.advance(2_000);
    expect(calls).toEqual(['a', 'b', 'c']);

    state.fixed = true;
    const requeued = await retryFromStep(h.driver, id, 'b');
    expect(requeued).toMatchObject({ id, state: 'ready', attempt: 0 });
    // the kept step was stored by attempt 1; the count restarted at 0, so nothing has replayed it yet
    const queued = await inspectJob(h.driver, id);
    expect(queued.steps.map((s) => [s.name, s.attempt, s.replays])).toEqual([['a', 1, 0]]);
    h.worker.signalEnqueued(handle.queue);
    await h.advance(2_000);

    expect(calls).toEqual(['a', 'b', 'c', 'b', 'c']);
    const view = await inspectJob(h.driver, id);
    expect(view.state).toBe('done');
    expect(view.failure).toBeNull();
    expect(view.steps.map((s) => s.name)).toEqual(['a', 'b', 'c']);
  });
  it("counts a step's replays: the later attempts handed its stored result instead of running it", async () => {
    const runs = { b: 0 };
    const flaky = job({
      name: 'replays.flaky',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, delay: 1_000, jitter: false, backoff: 'fixed' },
      async run({ step }) {
        await step.run('a', () => Promise.resolve('A'));
        await step.run('b', () => {
          runs.b += 1;
          if (runs.b < 3) throw new Error(`b failed ${runs.b}`);
          return Promise.resolve('B');
        });
      },
    });
    h = await runJobs({ jobs: [flaky] });
    const { id } = await flaky.enqueue({ n: 1 });
    await h.advance(5_000);

    const view = await inspectJob(h.driver, id);
    expect(view).toMatchObject({ state: 'done', attempt: 3 });
    expect(view.steps.map((s) => [s.name, s.attempt, s.replays])).toEqual([
      ['a', 1, 2],
      ['b', 3, 0],
    ]);
  });
});

describe('failureOf', () => {
  it('splits the code, the first line and the rest', () => {
    expect(failureOf('X_JOB_TIMEOUT: took too long\nterminal: X_JOB_TIMEOUT')).toEqual({
      code: 'X_JOB_TIMEOUT',
      message: 'took too long',
      stack: 'terminal: X_JOB_TIMEOUT',
    });
    expect(failureOf('plain words')).toEqual({ code: null, message: 'plain words', stack: null });
    expect(failureOf(null)).toBeNull();
    // trailing blank lines are no stack
    expect(failureOf('X_BOOM: no\n  \n')).toEqual({ code: 'X_BOOM', message: 'no', stack: null });
  });
});
