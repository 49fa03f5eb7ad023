import { context, createContextKey, SpanKind, trace } from '@opentelemetry/api';
import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { uuidv7 } from '../util/ids';
import { inSpan, parentOf, inMemoryTracingEach } from '../../../../test/in-memory-tracing';

const input = t.object({ n: t.number });
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPAN = 'b7ad6b7169203331';

describe('the context a run and its steps run in: only the row decides the parent, the body keeps its own', () => {
  const tracing = inMemoryTracingEach();
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a row stamped with no traceparent runs as a root, even when its claim is woken inside a request', async () => {
    const ping = job({
      name: 'trace-context.root',
      input,
      idempotencyKey: ({ n }) => `root:${n}`,
      tenant: 'none',
      run: () => undefined,
    });
    const harness = await runJobs({ jobs: [ping] });
    h = harness;
    // a row another process queued outside any span: nothing wakes this worker for it
    const id = uuidv7(h.clock.now());
    await h.driver.enqueue({
      id,
      runId: uuidv7(h.clock.now()),
      name: 'trace-context.root',
      queue: 'default',
      input: { n: 1 },
      idempotencyKey: 'root:1',
      tenantId: null,
      enqueuedBy: null,
      runAt: h.clock.now(),
      maxAttempts: 1,
      priority: 0,
      onConflict: 'dedupe',
      concurrencyKey: null,
      traceparent: null,
    });
    // a request's enqueue wakes the worker, whose claim takes that row too
    await inSpan(tracing.tracer, 'POST /unrelated', async () => {
      harness.worker.signalEnqueued('default');
      await harness.settle();
    });
    expect((await h.driver.get(id))?.state).toBe('done');

    const run = tracing.span('job trace-context.root');
    expect(parentOf(run)).toBeUndefined();
    expect(run.spanContext().traceId).not.toBe(
      tracing.span('POST /unrelated').spanContext().traceId,
    );
  });

  it("a stored traceparent is the run's remote parent, its sampling flag carried", async () => {
    const ping = job({
      name: 'trace-context.remote',
      input,
      idempotencyKey: ({ n }) => `remote:${n}`,
      tenant: 'none',
      run: () => undefined,
    });
    h = await runJobs({ jobs: [ping] });
    // an upstream's span context, as a propagator extracts it: the row is stamped from it
    const upstream = trace.setSpanContext(context.active(), {
      traceId: TRACE,
      spanId: SPAN,
      traceFlags: 1,
      isRemote: true,
    });
    const { id } = await context.with(upstream, () => ping.enqueue({ n: 1 }));
    expect((await h.driver.get(id))?.traceparent).toBe(`00-${TRACE}-${SPAN}-01`);
    await h.settle();

    const run = tracing.span('job trace-context.remote');
    expect(run.spanContext().traceId).toBe(TRACE);
    expect(run.parentSpanContext).toMatchObject({ spanId: SPAN, traceFlags: 1, isRemote: true });
  });

  it('a step function sees the context its caller set, with the step span active in it', async () => {
    const NOTE = createContextKey('trace-context.note');
    const seen: unknown[] = [];
    const noted = job({
      name: 'trace-context.note',
      input,
      idempotencyKey: ({ n }) => `note:${n}`,
      tenant: 'none',
      async run({ step }) {
        await context.with(context.active().setValue(NOTE, 'from the body'), () =>
          step.run('read', () => {
            seen.push(context.active().getValue(NOTE), trace.getActiveSpan() !== undefined);
            return 'read';
          }),
        );
      },
    });
    h = await runJobs({ jobs: [noted] });
    await noted.enqueue({ n: 1 });
    await h.settle();

    expect(seen).toEqual(['from the body', true]);
    const run = tracing.span('job trace-context.note');
    const read = tracing.span('step.run read');
    expect(parentOf(read)).toBe(run.spanContext().spanId);
    expect(read.kind).toBe(SpanKind.INTERNAL);
  });

  it('an unnamed sleep is traced under its stored step name, with the instant the run resumes', async () => {
    const nap = job({
      name: 'trace-context.nap',
      input,
      idempotencyKey: ({ n }) => `nap:${n}`,
      tenant: 'none',
      async run({ step }) {
        await step.sleep('2s');
      },
    });
    h = await runJobs({ jobs: [nap] });
    const { id } = await nap.enqueue({ n: 1 });
    await h.settle();
    const resumeAt = h.clock.now() + 2_000;
    await h.advance(2_000);
    expect((await h.driver.get(id))?.state).toBe('done');

    const stored = (await h.driver.steps.load(id)).map((s) => s.name);
    expect(stored).toEqual(['sleep:2s']);
    const sleeps = tracing.spans().filter((s) => s.attributes['jobs.step.kind'] === 'sleep');
    expect(sleeps.map((s) => [s.name, s.attributes['jobs.step.name']])).toEqual([
      ['step.sleep sleep:2s', 'sleep:2s'],
      ['step.sleep sleep:2s', 'sleep:2s'],
    ]);
    expect(sleeps[0]?.attributes['jobs.step.resume_at']).toBe(resumeAt);
    expect(
      tracing.spans().find((s) => s.name === 'job trace-context.nap')?.attributes,
    ).toMatchObject({ 'jobs.outcome': 'suspended', 'jobs.resume_at': resumeAt });
  });
});
