import { z } from 'zod';
import { rejection } from '../../test/outcomes';
import { memoryFacadeEach } from '../../test/memory-facade';
import { runJobs } from '../testing/run-jobs';
import { job } from './job';

let n = 0;
const unique = (): string => `stored-transform-${++n}`;

/** Dollars in, cents out: a transform that, applied again to its own output, multiplies again. */
const cents = z.object({ amount: z.number().transform((dollars) => dollars * 100) });

describe('an input whose schema transforms it is judged in the form a run reads back', () => {
  const facade = memoryFacadeEach();

  it('refuses a transform a run would apply again (the body got 120000 for 12 dollars), single and batch', async () => {
    const h = job({
      name: unique(),
      input: cents,
      idempotencyKey: ({ amount }) => `charge:${amount}`,
      tenant: 'none',
    });
    const single = await rejection(h.enqueue({ amount: 12 }));
    expect(single['code']).toBe('X_JOB_INPUT_INVALID');
    expect(String(single['message'])).toContain('the schema changes its own output');
    const batch = await rejection(h.enqueueMany([{ amount: 1 }, { amount: 0 }, { amount: 3 }]));
    // 0 * 100 is 0 again: only the items a run would read otherwise are named
    expect((batch['issues'] as { index: number }[]).map((i) => i.index)).toEqual([0, 2]);
    expect(await facade.driver.stats()).toEqual([]);
  });

  it('refuses a transform whose output no longer parses (a string read as a number), instead of failing every attempt', async () => {
    const h = job({
      name: unique(),
      input: z.object({ qty: z.string().transform((s) => Number(s)) }),
      idempotencyKey: ({ qty }) => `qty:${qty}`,
      tenant: 'none',
    });
    const error = await rejection(h.enqueue({ qty: '12' }));
    expect(error['code']).toBe('X_JOB_INPUT_INVALID');
    expect(JSON.stringify(error['issues'])).toContain('once stored as JSON');
    expect(await facade.driver.stats()).toEqual([]);
  });

  it('accepts a transform that reproduces its own output, deriving the key from what the run will read', async () => {
    const h = job({
      name: unique(),
      input: z.object({ email: z.string().trim().toLowerCase(), plan: z.string().default('free') }),
      idempotencyKey: ({ email, plan }) => `${email}:${plan}`,
      tenant: 'none',
    });
    const { id } = await h.enqueue({ email: '  Ada@Example.COM ' });
    const row = await facade.driver.get(id);
    expect(row?.input).toEqual({ email: 'ada@example.com', plan: 'free' });
    expect(row?.idempotencyKey).toBe('ada@example.com:free');
  });
});

describe('a transformed input at run time', () => {
  it('reaches the body as it was enqueued', async () => {
    const seen: unknown[] = [];
    const h = job({
      name: unique(),
      input: z.object({ email: z.string().toLowerCase() }),
      idempotencyKey: ({ email }) => email,
      tenant: 'none',
      async run({ input }) {
        seen.push(input);
      },
    });
    const harness = await runJobs({ jobs: [h] });
    try {
      await h.enqueue({ email: 'ADA@X.IO' });
      await harness.settle();
      expect(seen).toEqual([{ email: 'ada@x.io' }]);
    } finally {
      await harness.close();
    }
  });
});
