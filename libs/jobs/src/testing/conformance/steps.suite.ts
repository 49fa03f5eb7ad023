import type { StepRecord } from '../../driver/job-driver';
import { claimOf } from '../../driver/job-row';
import type { Harness } from './harness';

/** A step record completed at `completedAt` by attempt 1. */
function step(name: string, output: StepRecord['output'], completedAt = 0): StepRecord {
  return { name, output, attempt: 1, startedAt: completedAt, completedAt };
}

/** steps: durable step storage, fenced like a settle. */
export function stepsSuite(h: Harness): void {
  describe('steps', () => {
    it('loads [] for a job with no step, and for an unknown id', async () => {
      const row = await h.running();
      expect(await h.driver().steps.load(row.id)).toEqual([]);
      expect(await h.driver().steps.load(h.newId())).toEqual([]);
    });

    it('saves under the current claim and loads every field back in completion order', async () => {
      const row = await h.running();
      const steps = h.driver().steps;
      const b = {
        name: 'b',
        output: { list: [1, 'two'], ok: true },
        attempt: 1,
        startedAt: 5,
        completedAt: 9,
      };
      expect(await steps.save(row.id, claimOf(row), b)).toBe(true);
      expect(await steps.save(row.id, claimOf(row), step('a', 'text', 10))).toBe(true);
      expect(await steps.save(row.id, claimOf(row), step('c', null, 11))).toBe(true);
      expect(await steps.load(row.id)).toEqual([b, step('a', 'text', 10), step('c', null, 11)]);
    });

    it('keeps the first output when a name is saved again (idempotent, answers true)', async () => {
      const row = await h.running();
      const steps = h.driver().steps;
      await steps.save(row.id, claimOf(row), step('a', 1));
      expect(await steps.save(row.id, claimOf(row), step('a', 2))).toBe(true);
      expect(await steps.load(row.id)).toEqual([step('a', 1)]);
    });

    it('loads a step that returned nothing back with no output (not null)', async () => {
      const row = await h.running();
      const { output: _none, ...nothing } = step('void', null, 1);
      expect(await h.driver().steps.save(row.id, claimOf(row), nothing)).toBe(true);
      const [loaded] = await h.driver().steps.load(row.id);
      expect(loaded?.name).toBe('void');
      expect(loaded?.output).toBeUndefined();
    });

    it('stores the output, not a reference to the caller’s object', async () => {
      const row = await h.running();
      const output = { list: [1] };
      await h.driver().steps.save(row.id, claimOf(row), step('a', output));
      output.list.push(2);
      expect((await h.driver().steps.load(row.id))[0]?.output).toEqual({ list: [1] });
    });

    it('is fenced: a wrong claim, or a row no longer running, answers false and writes nothing', async () => {
      const row = await h.running();
      const steps = h.driver().steps;
      const wrong = { ...claimOf(row), claim: h.newId() };
      expect(await steps.save(row.id, wrong, step('a', 1))).toBe(false);
      await h.driver().ack(row.id, claimOf(row));
      expect(await steps.save(row.id, claimOf(row), step('b', 1))).toBe(false);
      expect(await steps.save(h.newId(), claimOf(row), step('c', 1))).toBe(false);
      expect(await steps.load(row.id)).toEqual([]);
    });

    it('survive a retry, and the next attempt appends after them', async () => {
      const first = await h.running();
      const steps = h.driver().steps;
      await steps.save(first.id, claimOf(first), step('a', 1, 1));
      await steps.save(first.id, claimOf(first), step('b', 2, 2));
      await h.driver().nack(first.id, { ...claimOf(first), kind: 'retry', error: 'boom' });
      const [second] = await h.claim();
      expect(second?.id).toBe(first.id);
      const c = { ...step('c', 3, 3), attempt: 2 };
      expect(await steps.save(first.id, claimOf(second!), c)).toBe(true);
      expect(await steps.load(first.id)).toEqual([step('a', 1, 1), step('b', 2, 2), c]);
    });

    it('are kept per job', async () => {
      const a = await h.running();
      const b = await h.running();
      await h.driver().steps.save(a.id, claimOf(a), step('x', 'a'));
      await h.driver().steps.save(b.id, claimOf(b), step('x', 'b'));
      expect(await h.driver().steps.load(a.id)).toEqual([step('x', 'a')]);
      expect(await h.driver().steps.load(b.id)).toEqual([step('x', 'b')]);
    });
  });
}
