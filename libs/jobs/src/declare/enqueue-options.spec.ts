import { t } from '../schema';
import { job } from './job';
import { rejection } from '../../test/outcomes';
import { memoryFacadeEach } from '../../test/memory-facade';

let n = 0;
const unique = (): string => `options-${++n}`;

const declare = () =>
  job({
    name: unique(),
    input: t.object({ email: t.string.min(3), tags: t.array(t.string.max(5)) }),
    idempotencyKey: ({ email }) => `welcome:${email}`,
    tenant: 'none',
  });
const ok = (email: string) => ({ email, tags: ['a'] });

describe('a runId that is not a UUID', () => {
  const facade = memoryFacadeEach();

  it.each([['run-1'], [''], ['0190a0a0-0000-7000-8000-00000000000'], [42]])(
    'is X_JOB_OPTIONS_INVALID naming options.runId (%p), single and many, and nothing is queued',
    async (runId) => {
      const h = declare();
      const options = { runId: runId as string };
      for (const call of [
        () => h.enqueue(ok('u@x.io'), options),
        () => h.enqueueMany([ok('u@x.io')], options),
      ]) {
        const error = await rejection(call());
        expect(error).toMatchObject({
          code: 'X_JOB_OPTIONS_INVALID',
          meta: { job: h.name, field: 'options.runId' },
        });
      }
      expect(await facade.driver.stats()).toEqual([]);
    },
  );

  it('is checked before the input: a bad runId with a bad input names the runId', async () => {
    const h = declare();
    const error = await rejection(h.enqueue({ email: '' } as never, { runId: 'run-1' }));
    expect(error['code']).toBe('X_JOB_OPTIONS_INVALID');
  });

  it('shares the code with every bad option, each checked before the input and named', async () => {
    const h = declare();
    const cases: [Record<string, unknown>, string][] = [
      [{ queue: '' }, 'options.queue'],
      [{ queue: 'no spaces' }, 'options.queue'],
      [{ priority: 1.5 }, 'options.priority'],
      [{ onConflict: 'replace' }, 'options.onConflict'],
      [{ runAt: Number.NaN }, 'options.runAt'],
      [{ delay: '2 days' }, 'options.delay'],
      [{ runAt: 0, delay: '1s' }, 'options'],
    ];
    for (const [options, field] of cases) {
      for (const call of [
        () => h.enqueue({ email: '' } as never, options),
        () => h.enqueueMany([{ email: '' } as never], options),
      ]) {
        expect(await rejection(call())).toMatchObject({
          code: 'X_JOB_OPTIONS_INVALID',
          meta: { field },
        });
      }
    }
    expect(await facade.driver.stats()).toEqual([]);
  });

  it('accepts a UUID of any version or letter case, and stores it in lower case as every driver reads it back', async () => {
    const h = declare();
    const upper = '0190A0A0-0000-4000-8000-0000000000AB';
    expect((await h.enqueue(ok('v@x.io'), { runId: upper })).runId).toBe(upper.toLowerCase());
  });
});
