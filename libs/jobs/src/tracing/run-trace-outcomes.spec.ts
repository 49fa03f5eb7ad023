import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { InvariantError } from '../errors/runtime-errors';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { inMemoryTracingEach } from '../../../../test/in-memory-tracing';

const input = t.object({ key: t.string, n: t.number });

/** An Error carrying an app's error code, as a body throws it. */
const coded = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('a run span reports how the attempt ended: every failed outcome ERROR, with what the error says', () => {
  const tracing = inMemoryTracingEach();
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** The run spans of job `name`, in the order they ended. */
  const runsOf = (name: string): ReadableSpan[] =>
    tracing.spans().filter((s) => s.name === `job ${name}`);

  it('a dropped run (deadLetter: false) is ERROR with its stop reason; a coded error is named by its code', async () => {
    const drop = job({
      name: 'trace-outcome.drop',
      input,
      idempotencyKey: ({ n }) => `drop:${n}`,
      tenant: 'none',
      retry: { attempts: 1, deadLetter: false },
      run: () => {
        throw coded('CARD_DECLINED', 'card declined');
      },
    });
    h = await runJobs({ jobs: [drop] });
    const { id } = await drop.enqueue({ key: 'k', n: 1 });
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('failed');

    const [run] = runsOf('trace-outcome.drop');
    expect(run?.attributes).toMatchObject({
      'jobs.outcome': 'dropped',
      'jobs.stop_reason': 'attempts-exhausted',
      'error.type': 'CARD_DECLINED',
    });
    expect(run?.attributes['jobs.tenant']).toBeUndefined();
    expect(run?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'CARD_DECLINED: card declined',
    });
    // the exception event carries the Error itself: its type and its stack, not only a message
    const [exception] = run?.events ?? [];
    expect(exception?.name).toBe('exception');
    expect(exception?.attributes?.['exception.type']).toBe('CARD_DECLINED');
    expect(String(exception?.attributes?.['exception.stacktrace'])).toContain('card declined');
  });

  it('a retried run records when it is due again; a long message is cut, a thrown string named a string', async () => {
    const long = 'x'.repeat(3_000);
    const flaky = job({
      name: 'trace-outcome.flaky',
      input,
      idempotencyKey: ({ n }) => `flaky:${n}`,
      tenant: 'none',
      retry: { attempts: 2, backoff: 'fixed', delay: 1_000, jitter: false },
      run: ({ attempt }) => {
        if (attempt === 2) throw 'declined again';
        throw new Error(long);
      },
    });
    h = await runJobs({ jobs: [flaky] });
    await flaky.enqueue({ key: 'k', n: 1 });
    await h.settle();
    const due = h.clock.now() + 1_000;
    await h.advance(1_000);

    const [first, second] = runsOf('trace-outcome.flaky');
    expect(first?.attributes['jobs.outcome']).toBe('retried');
    expect(first?.attributes['jobs.resume_at']).toBe(due);
    expect(first?.attributes['jobs.stop_reason']).toBeUndefined();
    expect(first?.status).toEqual({ code: SpanStatusCode.ERROR, message: long.slice(0, 1_024) });
    expect(second?.attributes).toMatchObject({
      'jobs.outcome': 'dead-lettered',
      'jobs.stop_reason': 'attempts-exhausted',
      'error.type': 'string',
    });
    expect(second?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'declined again' });
  });

  it("a whenBusy: 'fail' refusal is ERROR: the run was settled failed without its body", async () => {
    const held: (() => void)[] = [];
    const busy = job({
      name: 'trace-outcome.busy',
      input,
      idempotencyKey: ({ n }) => `busy:${n}`,
      tenant: 'none',
      concurrency: { key: ({ key }) => key, limit: 1, whenBusy: 'fail' },
      run: ({ input: i }) =>
        i.n === 1 ? new Promise<void>((resolve) => held.push(resolve)) : undefined,
    });
    h = await runJobs({ jobs: [busy], concurrency: 4 });
    await busy.enqueue({ key: 'acct', n: 1 });
    await h.settle();
    await busy.enqueue({ key: 'acct', n: 2 });
    await h.settle();

    const [refused] = runsOf('trace-outcome.busy');
    expect(refused?.attributes['jobs.outcome']).toBe('refused');
    expect(refused?.attributes['error.type']).toBe('X_JOB_KEY_BUSY');
    expect(refused?.status.code).toBe(SpanStatusCode.ERROR);
    for (const resolve of held.splice(0)) resolve();
    await h.settle();
  });

  it('a run whose settle did not land (cancelled while running) is ERROR: lost, no error to name', async () => {
    const clock = frozenClock();
    const driver = memoryJobDriver({ clock });
    const cancelled = job({
      name: 'trace-outcome.lost',
      input,
      idempotencyKey: ({ n }) => `lost:${n}`,
      tenant: 'none',
      async run({ jobId }) {
        await driver.introspect.cancel(jobId, 'operator'); // an operator cancels the row while its body runs
        return 'finished anyway';
      },
    });
    h = await runJobs({ jobs: [cancelled], clock, driver });
    const { id } = await cancelled.enqueue({ key: 'k', n: 1 });
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('cancelled');

    const [run] = runsOf('trace-outcome.lost');
    expect(run?.attributes['jobs.outcome']).toBe('lost');
    expect(run?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'attempt lost: its settle did not land',
    });
  });

  it('an attempt whose settle throws is ERROR with that error, and its span still ends', async () => {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    // the ack refused outright (a coded error other than the database out of reach is not sent again): the attempt
    // itself rejects
    const down = new InvariantError('the driver refused the settle');
    const driver: JobDriver = {
      ...inner,
      ack: () => Promise.reject(down),
      ackMany: () => Promise.reject(down),
    };
    const quick = job({
      name: 'trace-outcome.unsettled',
      input,
      idempotencyKey: ({ n }) => `unsettled:${n}`,
      tenant: 'none',
      run: () => 'done',
    });
    h = await runJobs({ jobs: [quick], clock, driver });
    await quick.enqueue({ key: 'k', n: 1 });
    await h.settle();

    const run = tracing.span('job trace-outcome.unsettled');
    expect(run.attributes['jobs.outcome']).toBeUndefined();
    expect(run.attributes['error.type']).toBe('X_INVARIANT');
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.status.message).toMatch(/^X_INVARIANT: the driver refused the settle/);
  });
});
