import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { inSpan, parentOf, inMemoryTracingEach } from '../../../../test/in-memory-tracing';

const input = t.object({ orgId: t.string, n: t.number });

describe('traces on the memory driver: enqueue under a span, the run and its steps as its children', () => {
  const tracing = inMemoryTracingEach();
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('stamps the request span on the row; the run is its CONSUMER child, the step the run’s child', async () => {
    const charge = job({
      name: 'trace.charge',
      input,
      idempotencyKey: ({ n }) => `charge:${n}`,
      tenant: ({ orgId }) => orgId,
      async run({ step }) {
        return step.run('capture', () => 'captured');
      },
    });
    h = await runJobs({ jobs: [charge] });
    const queued = await inSpan(tracing.tracer, 'POST /checkout', async (span) => {
      const result = await charge.enqueue({ orgId: 'org_1', n: 1 });
      const row = await h?.driver.get(result.id);
      const { traceId, spanId } = span.spanContext();
      expect(row?.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      return result;
    });
    await h.settle();
    expect((await h.driver.get(queued.id))?.state).toBe('done');

    const request = tracing.span('POST /checkout');
    const run = tracing.span('job trace.charge');
    const step = tracing.span('step.run capture');
    const traceId = request.spanContext().traceId;
    expect([run, step].map((s) => s.spanContext().traceId)).toEqual([traceId, traceId]);
    expect(parentOf(run)).toBe(request.spanContext().spanId);
    expect(parentOf(step)).toBe(run.spanContext().spanId);
    expect(run.kind).toBe(SpanKind.CONSUMER);
    expect(run.attributes).toEqual({
      'jobs.job.name': 'trace.charge',
      'jobs.job.id': queued.id,
      'jobs.run.id': queued.runId,
      'jobs.attempt': 1,
      'jobs.max_attempts': charge.retry.attempts,
      'jobs.queue': 'default',
      'jobs.tenant': 'org_1',
      'jobs.outcome': 'completed',
    });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(step.attributes).toEqual({ 'jobs.step.name': 'capture', 'jobs.step.kind': 'run' });
  });

  it('stamps every row of a batch with the span active at enqueueMany, and no span outside one', async () => {
    const report = job({
      name: 'trace.report',
      input,
      idempotencyKey: ({ n }) => `report:${n}`,
      tenant: ({ orgId }) => orgId,
      run: () => undefined,
    });
    h = await runJobs({ jobs: [report] });
    const inputs = [1, 2, 3].map((n) => ({ orgId: 'org_1', n }));
    const expected = await inSpan(tracing.tracer, 'POST /reports', async (span) => {
      const { traceId, spanId } = span.spanContext();
      return {
        results: await report.enqueueMany(inputs),
        traceparent: `00-${traceId}-${spanId}-01`,
      };
    });
    const rows = await Promise.all(expected.results.map((r) => h?.driver.get(r.id)));
    expect(rows.map((row) => row?.traceparent)).toEqual([1, 2, 3].map(() => expected.traceparent));
    const outside = await report.enqueueMany([4, 5].map((n) => ({ orgId: 'org_1', n })));
    const untraced = await Promise.all(outside.map((r) => h?.driver.get(r.id)));
    expect(untraced.map((row) => row?.traceparent)).toEqual([null, null]);
  });

  it('a retried run: each attempt a child of the one request span, the stored step replayed, the failure ERROR', async () => {
    let attempts = 0;
    const flaky = job({
      name: 'trace.flaky',
      input,
      idempotencyKey: ({ n }) => `flaky:${n}`,
      tenant: 'none',
      retry: { attempts: 2, backoff: 'fixed', delay: 1_000, jitter: false },
      async run({ step }) {
        await step.run('reserve', () => 'reserved');
        attempts += 1;
        if (attempts === 1) throw new Error('card declined');
      },
    });
    h = await runJobs({ jobs: [flaky] });
    await inSpan(tracing.tracer, 'POST /orders', () => flaky.enqueue({ orgId: 'x', n: 2 }));
    await h.settle();
    await h.advance(1_000);

    const request = tracing.span('POST /orders');
    const runs = tracing.spans().filter((s) => s.name === 'job trace.flaky');
    expect(runs.map((r) => [r.attributes['jobs.attempt'], r.attributes['jobs.outcome']])).toEqual([
      [1, 'retried'],
      [2, 'completed'],
    ]);
    for (const run of runs) {
      expect(run.spanContext().traceId).toBe(request.spanContext().traceId);
      expect(parentOf(run)).toBe(request.spanContext().spanId);
    }
    const [first, second] = runs;
    expect(first?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'card declined' });
    expect(first?.attributes['error.type']).toBe('Error');
    expect(first?.events.map((e) => e.name)).toEqual(['exception']);
    const steps = tracing.spans().filter((s) => s.name === 'step.run reserve');
    expect(steps.map((s) => [parentOf(s), s.attributes['jobs.step.replayed']])).toEqual([
      [first?.spanContext().spanId, undefined],
      [second?.spanContext().spanId, true],
    ]);
    expect(steps[1]?.attributes['jobs.step.stored_by_attempt']).toBe(1);
  });

  it('a step that throws is an ERROR step span; sleep and waitForEvent are short spans that record the suspension', async () => {
    const steps = job({
      name: 'trace.steps',
      input,
      idempotencyKey: ({ n }) => `steps:${n}`,
      tenant: 'none',
      retry: { attempts: 1 },
      async run({ step }) {
        await step.sleep('cool-off', '1s');
        const paid = await step.waitForEvent<{ ok: boolean }>('paid', 'payment.settled', {
          timeout: '1m',
        });
        await step.run('refund', () => {
          throw new Error(`refund failed (${String(paid.ok)})`);
        });
      },
    });
    h = await runJobs({ jobs: [steps] });
    const { id } = await inSpan(tracing.tracer, 'POST /refunds', () =>
      steps.enqueue({ orgId: 'x', n: 3 }),
    );
    await h.settle(); // the sleep parks the run for 1 s
    await h.advance(1_000); // the sleep has passed; the wait parks it until the next event poll
    await h.events.publish('payment.settled', { ok: true });
    await h.advance(60_000); // the wait answers; the refund fails its only attempt
    expect((await h.driver.get(id))?.state).toBe('dead');

    const runs = tracing.spans().filter((s) => s.name === 'job trace.steps');
    expect(runs.map((r) => r.attributes['jobs.outcome'])).toEqual([
      'suspended',
      'suspended',
      'dead-lettered',
    ]);
    const [first, second, last] = runs;
    const sleeps = tracing.spans().filter((s) => s.name === 'step.sleep cool-off');
    expect(sleeps.map((s) => [parentOf(s), s.attributes['jobs.step.suspended']])).toEqual([
      [first?.spanContext().spanId, true],
      [second?.spanContext().spanId, undefined],
      [last?.spanContext().spanId, undefined],
    ]);
    expect(sleeps[0]?.status.code).toBe(SpanStatusCode.UNSET);
    const waits = tracing.spans().filter((s) => s.name === 'step.waitForEvent paid');
    expect(waits.map((s) => [parentOf(s), s.attributes['jobs.step.suspended']])).toEqual([
      [second?.spanContext().spanId, true],
      [last?.spanContext().spanId, undefined],
    ]);
    expect(waits[0]?.attributes['jobs.step.event']).toBe('payment.settled');
    const refund = tracing.span('step.run refund');
    expect(parentOf(refund)).toBe(last?.spanContext().spanId);
    expect(refund.status).toEqual({ code: SpanStatusCode.ERROR, message: 'refund failed (true)' });
    expect(last?.status.code).toBe(SpanStatusCode.ERROR);
    // every attempt hangs off the one request: the whole story is one trace
    expect(new Set(tracing.spans().map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(runs.map(parentOf)).toEqual(
      Array(3).fill(tracing.span('POST /refunds').spanContext().spanId),
    );
  });
});
