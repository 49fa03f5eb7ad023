import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs } from '../testing/run-jobs';
import { activeTraceparent, tracingOn } from './run-span';

const input = t.object({ n: t.number });

describe('tracing with @opentelemetry/api installed but no tracer provider registered', () => {
  afterEach(() => context.disable());

  it('stamps nothing, opens no span, and runs the job and its steps as before', async () => {
    // a context manager alone (no provider): the API hands out non-recording spans with an invalid context
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const steps: string[] = [];
    const handle = job({
      name: 'trace-off.job',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ step }) {
        steps.push(await step.run('one', () => 'one'));
      },
    });
    const h = await runJobs({ jobs: [handle] });
    try {
      const { id } = await trace.getTracer('app').startActiveSpan('POST /nothing', async (span) => {
        try {
          expect(tracingOn()).toBe(false);
          expect(activeTraceparent()).toBeNull();
          return await handle.enqueue({ n: 1 });
        } finally {
          span.end();
        }
      });
      expect((await h.driver.get(id))?.traceparent).toBeNull();
      await h.settle();
      expect((await h.driver.get(id))?.state).toBe('done');
      expect(steps).toEqual(['one']);
    } finally {
      await h.close();
    }
  });

  it('without a context manager either: no active span, nothing stamped', () => {
    expect(tracingOn()).toBe(false);
    expect(activeTraceparent()).toBeNull();
  });
});
