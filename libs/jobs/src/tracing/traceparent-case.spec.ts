import { context, trace } from '@opentelemetry/api';
import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { inSpan, parentOf, inMemoryTracingEach } from '../../../../test/in-memory-tracing';

// What a B3 or Jaeger propagator extracts from an upstream that writes its ids in upper case: the API takes hex of
// either case as a valid span context, and the SDK's spans under it keep the parent's trace id as given.
const UPSTREAM = {
  traceId: '4BF92F3577B34DA6A3CE929D0E0E4736',
  spanId: '00F067AA0BA902B7',
  traceFlags: 1,
  isRemote: true,
};

describe('a trace whose ids arrived in upper case', () => {
  const tracing = inMemoryTracingEach();
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('stamps a W3C (lower-case) traceparent, so the run stays a child of the enqueuing span', async () => {
    const ping = job({
      name: 'trace-case.ping',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `ping:${n}`,
      tenant: 'none',
      run: () => undefined,
    });
    h = await runJobs({ jobs: [ping] });
    const upstream = trace.setSpanContext(context.active(), UPSTREAM);
    const { id } = await context.with(upstream, () =>
      inSpan(tracing.tracer, 'GET /from-upstream', () => ping.enqueue({ n: 1 })),
    );
    const request = tracing.span('GET /from-upstream');
    expect(request.spanContext().traceId).toBe(UPSTREAM.traceId);
    expect((await h.driver.get(id))?.traceparent).toBe(
      `00-${UPSTREAM.traceId.toLowerCase()}-${request.spanContext().spanId.toLowerCase()}-01`,
    );
    await h.settle();

    const run = tracing.span('job trace-case.ping');
    expect(run.spanContext().traceId).toBe(UPSTREAM.traceId.toLowerCase());
    expect(parentOf(run)).toBe(request.spanContext().spanId.toLowerCase());
  });
});
