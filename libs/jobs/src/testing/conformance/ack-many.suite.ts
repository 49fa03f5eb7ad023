import type { JobDriver } from '../../driver/job-driver';
import { claimOf } from '../../driver/job-row';
import type { Harness } from './harness';

/**
 * `ackMany`, for a backend that declares `batchAck`: each item held to the same fencing as `ack`, item by item. A
 * backend that does not declare it is checked to lack it instead (see `backendConformance`).
 */
export function ackManySuite(h: Harness): void {
  describe('ackMany', () => {
    const ackMany = (): NonNullable<JobDriver['ackMany']> => {
      const d = h.driver();
      if (d.ackMany === undefined) throw new Error('conformance: the driver has no ackMany');
      return d.ackMany.bind(d);
    };
    it('settles every item done in one call, answering per item in order', async () => {
      const a = await h.running();
      const b = await h.running();
      expect(
        await ackMany()([
          { jobId: b.id, ...claimOf(b), durationMs: 3 },
          { jobId: a.id, ...claimOf(a) },
        ]),
      ).toEqual([true, true]);
      for (const row of [a, b]) {
        expect(await h.driver().get(row.id)).toMatchObject({
          state: 'done',
          claim: null,
          workerId: null,
        });
      }
      expect(await ackMany()([])).toEqual([]);
    });

    it('fences each item on its own claim: the stale ones answer false and move nothing', async () => {
      const good = await h.running();
      const stale = await h.running();
      const ready = await h.enqueue();
      const answers = await ackMany()([
        { jobId: stale.id, workerId: stale.workerId, claim: h.newId() },
        { jobId: good.id, ...claimOf(good) },
        { jobId: stale.id, workerId: 'worker-z', claim: stale.claim },
        { jobId: ready.id, workerId: 'worker-a', claim: h.newId() },
        { jobId: h.newId(), workerId: 'worker-a', claim: h.newId() },
      ]);
      expect(answers).toEqual([false, true, false, false, false]);
      expect((await h.driver().get(good.id))?.state).toBe('done');
      expect((await h.driver().get(stale.id))?.state).toBe('running');
      expect((await h.driver().get(ready.id))?.state).toBe('ready');
    });

    it('lands a row named twice once: the first item answers true, the repeat false', async () => {
      const row = await h.running();
      expect(
        await ackMany()([
          { jobId: row.id, ...claimOf(row) },
          { jobId: row.id, ...claimOf(row) },
        ]),
      ).toEqual([true, false]);
      expect(await ackMany()([{ jobId: row.id, ...claimOf(row) }])).toEqual([false]);
    });
  });
}
