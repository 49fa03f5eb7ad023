import { MAX_FREE_TEXT_LENGTH, TRUNCATION_MARKER } from '../../values/bounds';
import type { Harness } from './harness';
import { outcomeCode } from './values-support';

const FIVE_MB = 'x'.repeat(5 * 1024 * 1024);

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
  });
}
