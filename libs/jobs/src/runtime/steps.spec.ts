import { job } from '../declare/job';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { harnessSlot } from '../../test/harness-slot';

const input = t.object({ n: t.number });

class Money {
  constructor(readonly cents: number) {}
}

describe('durable steps', () => {
  const { start } = harnessSlot();

  it('a duplicate step name in one run is X_STEP_DUPLICATE: terminal, dead on attempt 1 of 5', async () => {
    const calls = { first: 0, second: 0 };
    let thrown: unknown;
    const handle = job({
      name: 'steps.duplicate',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 5 },
      async run({ step }) {
        await step.run('charge', () => ++calls.first);
        try {
          await step.run('charge', () => ++calls.second);
        } catch (error) {
          thrown = error;
          throw error;
        }
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(errorCodeOf(thrown)).toBe('X_STEP_DUPLICATE');
    expect(calls).toEqual({ first: 1, second: 0 });
    const row = await h.driver.get(id);
    expect(row).toMatchObject({ state: 'dead', attempt: 1 });
    expect(row?.lastError).toContain('terminal: X_STEP_DUPLICATE');
    expect((await h.driver.steps.load(id)).map((s) => [s.name, s.output])).toEqual([['charge', 1]]);
    expect(h.metrics.total('default', 'dead')).toBe(1);
  });

  const invalid: [string, () => unknown][] = [
    ['a Date', () => new Date(0)],
    ['a Map', () => new Map([['a', 1]])],
    ['a Set', () => new Set([1])],
    ['a BigInt', () => 10n],
    ['a function', () => () => 1],
    ['NaN', () => Number.NaN],
    ['Infinity', () => Number.POSITIVE_INFINITY],
    ['a class instance', () => new Money(100)],
    ['a Date inside an object', () => ({ at: new Date(0) })],
    ['a BigInt inside an array', () => [1, 2n]],
  ];
  it.each(invalid)(
    'a step returning %s is X_STEP_OUTPUT_INVALID: terminal, and nothing is stored',
    async (label, make) => {
      let thrown: unknown;
      const handle = job({
        name: `steps.invalid.${label.replace(/[^a-z]+/gi, '-').toLowerCase()}`,
        input,
        idempotencyKey: ({ n }) => `n:${n}`,
        tenant: 'none',
        retry: { attempts: 5 },
        async run({ step }) {
          try {
            await step.run('value', make);
          } catch (error) {
            thrown = error;
            throw error;
          }
        },
      });
      const h = await start({ jobs: [handle] });
      const { id } = await handle.enqueue({ n: 1 });
      await h.settle();

      expect(errorCodeOf(thrown)).toBe('X_STEP_OUTPUT_INVALID');
      expect(await h.driver.get(id)).toMatchObject({ state: 'dead', attempt: 1 });
      expect(await h.driver.steps.load(id)).toEqual([]);
    },
  );

  it('a step returning undefined is stored without an output and replays as undefined', async () => {
    const calls = { nothing: 0, flaky: 0 };
    const replayed: unknown[] = [];
    const handle = job({
      name: 'steps.undefined',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 2, backoff: 'fixed', delay: 1_000, jitter: false },
      async run({ step }) {
        const value = await step.run('nothing', () => {
          calls.nothing++;
        });
        replayed.push(value);
        await step.run('flaky', () => {
          calls.flaky++;
          if (calls.flaky === 1) throw new Error('once');
        });
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    await h.advance(1_000);

    expect((await h.driver.get(id))?.state).toBe('done');
    expect(calls).toEqual({ nothing: 1, flaky: 2 });
    expect(replayed).toEqual([undefined, undefined]);
    const [nothing] = await h.driver.steps.load(id);
    expect(nothing?.name).toBe('nothing');
    expect(nothing && 'output' in nothing).toBe(false);
  });

  it('a replay answers the stored JSON without calling fn, the same value the first run saw', async () => {
    let calls = 0;
    const seen: unknown[] = [];
    const handle = job({
      name: 'steps.replay',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 2, backoff: 'fixed', delay: 1_000, jitter: false },
      async run({ step, attempt }) {
        const value = await step.run('load', () => {
          calls++;
          return { id: 'a', rows: [1, { b: null }], dropped: undefined };
        });
        seen.push(value);
        if (attempt === 1) throw new Error('after the step');
        return value;
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    await h.advance(1_000);

    expect(calls).toBe(1);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toStrictEqual({ id: 'a', rows: [1, { b: null }] });
    expect(seen[1]).toStrictEqual(seen[0]);
    expect((await h.driver.get(id))?.state).toBe('done');
    const steps = await h.driver.steps.load(id);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ name: 'load', attempt: 1 });
  });

  it('a step failing is not stored, so the retry runs it again', async () => {
    let calls = 0;
    const handle = job({
      name: 'steps.failed-not-stored',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 2, backoff: 'fixed', delay: 1_000, jitter: false },
      async run({ step }) {
        return step.run('send', () => {
          calls++;
          if (calls === 1) throw new Error('SMTP down');
          return 'sent';
        });
      },
    });
    const h = await start({ jobs: [handle] });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    expect(await h.driver.steps.load(id)).toEqual([]);

    await h.advance(1_000);
    expect(calls).toBe(2);
    expect((await h.driver.steps.load(id)).map((s) => [s.name, s.output, s.attempt])).toEqual([
      ['send', 'sent', 2],
    ]);
  });
});
