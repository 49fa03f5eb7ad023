import { MAX_FREE_TEXT_LENGTH, TRUNCATION_MARKER } from '../../values/bounds';
import { FINISHED_STATES, LIVE_STATES } from '../../driver/job-row';
import { MAX_JOB_NAME_LENGTH, MAX_QUEUE_NAME_LENGTH } from '../../values/bounds';
import type { Harness } from './harness';
import { anyText, loadFastCheck, propertyRuns } from './values-arbitraries';
import { isDeclaredName } from './values-oracle';
import { expectFreeText } from './values-properties.suite';
import { outcomeCode } from './values-support';

const STATES: readonly string[] = [...LIVE_STATES, ...FINISHED_STATES];

const FIVE_MB = 'x'.repeat(5 * 1024 * 1024);

/** The oracle of an id prefix: 1 to 36 characters, lower-case hex digits, dashes exactly where a UUID has them. */
function isIdPrefix(text: string): boolean {
  if (text.length === 0 || text.length > 36) return false;
  return [...text].every((c, i) =>
    [8, 13, 18, 23].includes(i) ? c === '-' : '0123456789abcdef'.includes(c),
  );
}

function expectBounded(text: string | null | undefined): void {
  expect(text?.length).toBeLessThanOrEqual(MAX_FREE_TEXT_LENGTH);
  expect(text).toContain(TRUNCATION_MARKER);
}

/**
 * The operator surface's inputs under the value contract: a filter, a queue name or a step name no row can hold is
 * `X_VALUE_INVALID` naming the argument, never an empty answer; a cancel reason is free text, bounded.
 */
export function valuesOperatorSuite(h: Harness): void {
  describe('value contract: the operator surface', () => {
    it('a cancel reason of 5 MB is stored cut to the bound, with the marker', async () => {
      const request = await h.enqueue();
      expectBounded((await h.introspect().cancel(request.id, FIVE_MB))?.lastError);
    });

    it("list({ state: 'DEAD' }) is X_VALUE_INVALID, not []", async () => {
      await h.rowIn('dead');
      const state = 'DEAD' as unknown as 'dead';
      expect(await outcomeCode(() => h.introspect().list({ state }))).toBe('X_VALUE_INVALID');
      expect(await h.introspect().list({ state: 'dead' })).toHaveLength(1);
    });

    it('list filters that break the contract are X_VALUE_INVALID', async () => {
      const list = h.introspect().list;
      for (const filter of [{ queue: 'q\u0000' }, { name: 42 }, { tenantId: 't\ud800' }]) {
        expect(await outcomeCode(() => list(filter as never))).toBe('X_VALUE_INVALID');
      }
    });

    it('pauseQueue and resumeQueue refuse what is not a queue name', async () => {
      for (const queue of ['', 'bad queue', 'q\u0000', 'q'.repeat(64), 42]) {
        expect(await outcomeCode(() => h.introspect().pauseQueue(queue as string))).toBe(
          'X_VALUE_INVALID',
        );
        expect(await outcomeCode(() => h.introspect().resumeQueue(queue as string))).toBe(
          'X_VALUE_INVALID',
        );
      }
      expect(await h.introspect().pausedQueues()).toEqual([]);
    });

    it('requeue from a step name that breaks the contract is X_VALUE_INVALID', async () => {
      const dead = await h.rowIn('dead');
      expect(
        await outcomeCode(() => h.introspect().requeue(dead.id, { fromStep: 's\ud800' })),
      ).toBe('X_VALUE_INVALID');
    });

    it("any string as list()'s state or a queue to pause: X_VALUE_INVALID exactly when no row could hold it", async () => {
      const fc = loadFastCheck();
      const value = fc.oneof(anyText(fc, 70), fc.constantFrom(...STATES, 'DEAD', 'q-1', 'a.b:c_d'));
      await fc.assert(
        fc.asyncProperty(value, async (text) => {
          const listed = await outcomeCode(() => h.introspect().list({ state: text as never }));
          expect(listed).toBe(STATES.includes(text) ? 'resolved' : 'X_VALUE_INVALID');
          const paused = await outcomeCode(() => h.introspect().pauseQueue(text));
          const queue = isDeclaredName(text, MAX_QUEUE_NAME_LENGTH);
          expect(paused).toBe(queue ? 'resolved' : 'X_VALUE_INVALID');
          if (queue) await h.introspect().resumeQueue(text);
        }),
        { numRuns: propertyRuns() },
      );
      expect(await h.introspect().pausedQueues()).toEqual([]);
    }, 300_000);

    it('any string as an id prefix or a task to pause: X_VALUE_INVALID exactly when no row or task could hold it', async () => {
      const fc = loadFastCheck();
      const request = await h.enqueue();
      const prefixes = fc.oneof(
        anyText(fc, 40),
        fc.nat({ max: 36 }).map((n) => request.id.slice(0, n)),
        fc.nat({ max: 36 }).map((n) => request.id.slice(0, n).toUpperCase()),
      );
      await fc.assert(
        fc.asyncProperty(prefixes, async (text) => {
          const listed = await outcomeCode(() => h.introspect().list({ idPrefix: text }));
          expect(listed).toBe(isIdPrefix(text) ? 'resolved' : 'X_VALUE_INVALID');
          if (isIdPrefix(text) && request.id.startsWith(text)) {
            expect((await h.introspect().list({ idPrefix: text })).map((r) => r.id)).toEqual([
              request.id,
            ]);
          }
          const paused = await outcomeCode(() => h.introspect().pauseTask(text));
          const task = isDeclaredName(text, MAX_JOB_NAME_LENGTH);
          expect(paused).toBe(task ? 'resolved' : 'X_VALUE_INVALID');
          if (task) await h.introspect().resumeTask(text);
        }),
        { numRuns: propertyRuns() },
      );
      expect(await h.introspect().pausedTasks()).toEqual([]);
    }, 300_000);

    it('any string as a cancel reason: stored sanitised, cut to the bound with the marker', async () => {
      const fc = loadFastCheck();
      const text = fc.oneof(
        { weight: 8, arbitrary: anyText(fc, 40) },
        { weight: 1, arbitrary: anyText(fc, 9_000) },
      );
      await fc.assert(
        fc.asyncProperty(text, async (reason) => {
          const request = await h.enqueue();
          const row = await h.introspect().cancel(request.id, reason);
          expectFreeText(row?.lastError ?? '', reason);
        }),
        { numRuns: propertyRuns() },
      );
    }, 300_000);
  });
}
