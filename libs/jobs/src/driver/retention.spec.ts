import { errorCodeOf } from '../errors/jobs-error';
import { DEFAULT_PURGE_BATCH, resolveRetention } from './retention';

describe('resolveRetention', () => {
  it('fills in the defaults', () => {
    expect(resolveRetention()).toEqual({
      finishedMs: 7 * 24 * 3_600_000,
      deadMs: 30 * 24 * 3_600_000,
      batchSize: DEFAULT_PURGE_BATCH,
    });
  });

  it.each([0.5, 1.5, 0, -1, Number.NaN, Infinity])(
    'refuses a batch of %p rows: a batch of 0 (0.5 floored) is never short, so a purge loop never stopped',
    (batchSize) => {
      let thrown: unknown;
      try {
        resolveRetention({ batchSize });
      } catch (error) {
        thrown = error;
      }
      expect(errorCodeOf(thrown)).toBe('X_INVARIANT');
      expect(String((thrown as Error).message)).toMatch(/^retention\.batchSize must be/);
    },
  );

  it('keeps a whole batch as given', () => {
    expect(resolveRetention({ batchSize: 1 }).batchSize).toBe(1);
    expect(resolveRetention({ batchSize: 250 }).batchSize).toBe(250);
  });
});
