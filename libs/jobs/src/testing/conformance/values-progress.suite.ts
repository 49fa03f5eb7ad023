import { claimOf } from '../../driver/job-row';
import { errorCodeOf, JobsError } from '../../errors/jobs-error';
import { progressReporter } from '../../runtime/progress';
import type { Harness } from './harness';
import { edgeNumber, loadFastCheck, propertyRuns } from './values-arbitraries';
import { wholeIn } from './values-oracle';

/** A property over a database takes its time: 2,000 cases of a statement or two each. */
const PROPERTY_TIMEOUT_MS = 300_000;

/** The largest count every driver stores exactly (2^53 − 1), written out here rather than read from the contract. */
const LARGEST_COUNT = 9_007_199_254_740_991;

/** The field an `X_VALUE_INVALID` named, the code of any other failure, or `'resolved'`. */
async function refusedField(run: () => unknown): Promise<string> {
  try {
    await run();
    return 'resolved';
  } catch (error) {
    if (error instanceof JobsError && error.code === 'X_VALUE_INVALID') {
      return String(error.meta['field']);
    }
    return errorCodeOf(error) ?? `uncoded: ${String(error).slice(0, 120)}`;
  }
}

/** The field the contract names for `[done, total]`, worked out independently; undefined when it is stored. */
function expectedField(done: number, total: number): string | undefined {
  if (!wholeIn(done, 0, LARGEST_COUNT)) return 'progress.done';
  if (!wholeIn(total, 0, LARGEST_COUNT)) return 'progress.total';
  return undefined;
}

const BAD_COUNTS = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  1.5,
  2 ** 53,
  1e300,
];

/**
 * Progress numbers: `done` and `total` are whole numbers from 0 to 2^53 − 1, refused otherwise with `X_VALUE_INVALID`
 * naming the field — at `progress()` (the body sees it) and at each driver's `recordProgress` — so no driver stores
 * NaN as `null` while another keeps NaN. Everything allowed is read back exactly.
 */
export function valuesProgressSuite(h: Harness): void {
  describe('value contract: progress numbers', () => {
    it('NaN, ±Infinity, −1, 1.5 and 2^53 are X_VALUE_INVALID naming the field at recordProgress; nothing stored', async () => {
      const row = await h.running();
      const record = (done: number, total: number) => () =>
        h.driver().recordProgress(row.id, claimOf(row), { done, total });
      for (const bad of BAD_COUNTS) {
        expect(await refusedField(record(bad, 10))).toBe('progress.done');
        expect(await refusedField(record(1, bad))).toBe('progress.total');
      }
      const note = () =>
        h.driver().recordProgress(row.id, claimOf(row), { done: 1, total: 2, note: 5 as never });
      expect(await refusedField(note)).toBe('progress.note');
      expect((await h.driver().get(row.id))?.progress).toBeNull();
      expect(await refusedField(record(0, LARGEST_COUNT))).toBe('resolved');
      expect((await h.driver().get(row.id))?.progress).toEqual({ done: 0, total: LARGEST_COUNT });
    });

    it('progress() refuses them at the call, before anything is written; a good report is stored', async () => {
      const row = await h.running();
      const reporter = progressReporter(h.driver(), row.id, claimOf(row), h.clock());
      for (const bad of BAD_COUNTS) {
        expect(await refusedField(() => reporter.report(bad, 10))).toBe('progress.done');
        expect(await refusedField(() => reporter.report(3, bad))).toBe('progress.total');
      }
      await reporter.flush();
      expect((await h.driver().get(row.id))?.progress).toBeNull();
      reporter.report(3, 10, 'three');
      await reporter.flush();
      expect((await h.driver().get(row.id))?.progress).toEqual({
        done: 3,
        total: 10,
        note: 'three',
      });
    });

    it(
      'any number as done or total: refused naming the field, or stored and read back exactly',
      async () => {
        const fc = loadFastCheck();
        const row = await h.running();
        const count = fc.oneof(
          edgeNumber(fc),
          fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -1, LARGEST_COUNT, 2 ** 53),
          fc.nat(),
        );
        await fc.assert(
          fc.asyncProperty(count, count, async (done, total) => {
            const answer = await refusedField(() =>
              h.driver().recordProgress(row.id, claimOf(row), { done, total }),
            );
            const field = expectedField(done, total);
            expect(answer).toBe(field ?? 'resolved');
            if (field !== undefined) return;
            // -0 is the whole number 0 to every column
            const stored = (await h.driver().get(row.id))?.progress;
            expect(stored).toEqual({ done: done === 0 ? 0 : done, total: total === 0 ? 0 : total });
          }),
          { numRuns: propertyRuns() },
        );
      },
      PROPERTY_TIMEOUT_MS,
    );
  });
}
