import { job } from '../declare/job';
import { t } from '../schema';
import { otelApi, otelTried } from './otel';

describe('the optional tracing peer', () => {
  it('is loaded when a job is declared, as the app starts, not by its first enqueue or run', () => {
    expect(otelTried()).toBe(false);
    job({
      name: 'trace-load.job',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => undefined,
    });
    expect(otelTried()).toBe(true);
    expect(otelApi()).toBeDefined();
  });
});
