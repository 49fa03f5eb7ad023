import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs } from '../testing/run-jobs';
import { otelApi } from './otel';
import { activeTraceparent, tracingOn } from './run-span';

// The optional peer not installed: requiring it fails as a missing module does. (It is a devDependency of the repo,
// so its absence can only be staged.)
jest.mock('@opentelemetry/api', () => {
  throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), {
    code: 'MODULE_NOT_FOUND',
  });
});

describe('tracing without @opentelemetry/api installed', () => {
  it('loads nothing, stamps nothing, and runs jobs and steps as before', async () => {
    expect(otelApi()).toBeUndefined();
    expect(tracingOn()).toBe(false);
    expect(activeTraceparent()).toBeNull();
    const handle = job({
      name: 'trace-absent.job',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ step }) {
        return step.run('one', () => 1);
      },
    });
    const h = await runJobs({ jobs: [handle] });
    try {
      const { id } = await handle.enqueue({ n: 1 });
      await h.settle();
      expect(await h.driver.get(id)).toMatchObject({ state: 'done', traceparent: null });
    } finally {
      await h.close();
    }
  });
});
