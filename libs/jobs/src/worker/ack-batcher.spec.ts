import { claimOf } from '../driver/job-row';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf, JobsError } from '../errors/jobs-error';
import { uuidv7 } from '../util/ids';
import { ackBatcher } from './ack-batcher';
import { batchRequest as request, gatedAcks } from '../../test/gated-acks';

describe('ackBatcher', () => {
  it('sends a lone ack at once, and the acks arriving while two batches are out as one, each fenced', async () => {
    const g = gatedAcks();
    for (let n = 0; n < 6; n++) await g.inner.enqueue(request(g.clock, n));
    const rows = await g.inner.claim({
      workerId: 'w',
      slots: [{ queue: 'q', limit: 6 }],
      visibilityTimeoutMs: 30_000,
    });
    const acks = ackBatcher(g.driver);
    const first = acks.ack(rows[0]!.id, claimOf(rows[0]!));
    expect(g.batches).toEqual([[rows[0]!.id]]); // not delayed to a later tick
    const rest = rows
      .slice(1)
      .map((row, i) =>
        acks.ack(row.id, i === 2 ? { workerId: 'w', claim: uuidv7() } : claimOf(row)),
      );
    expect(g.batches).toHaveLength(2);
    expect(acks.pending()).toBe(6);
    await g.releaseAll();
    expect(g.batches.map((b) => b.length)).toEqual([1, 1, 4]);
    expect(await Promise.all([first, ...rest])).toEqual([true, true, true, false, true, true]);
    expect(acks.pending()).toBe(0);
  });

  it('rejects every ack of a batch whose statement failed', async () => {
    const inner = memoryJobDriver();
    const acks = ackBatcher({ ...inner, ackMany: () => Promise.reject(new Error('down')) });
    await expect(acks.ack(uuidv7(), { workerId: 'w', claim: uuidv7() })).rejects.toThrow('down');
  });

  it('fails a batch at once when the database is out of reach, rather than sending each ack again', async () => {
    const down = new JobsError('X_DRIVER_UNAVAILABLE', 'the database is out of reach');
    const held: (() => void)[] = [];
    const alone: string[] = [];
    const driver: JobDriver = {
      ...memoryJobDriver(),
      ackMany: () => new Promise((_, reject) => held.push(() => reject(down))),
      ack: (jobId) => {
        alone.push(jobId);
        return Promise.reject(down);
      },
    };
    const acks = ackBatcher(driver);
    // two lone acks fill the wire; the next three queue and leave as one batch of three
    const answers = [1, 2, 3, 4, 5].map(() =>
      acks.ack(uuidv7(), { workerId: 'w', claim: uuidv7() }).then(
        () => 'answered',
        (error: unknown) => errorCodeOf(error),
      ),
    );
    while (held.length > 0) {
      held.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(answers)).toEqual(answers.map(() => 'X_DRIVER_UNAVAILABLE'));
    expect(alone).toEqual([]);
    expect(acks.pending()).toBe(0);
  });

  it('acks one by one through a driver without ackMany', async () => {
    const inner = memoryJobDriver();
    const calls: string[] = [];
    const { ackMany: _none, ...rest } = inner;
    const driver: JobDriver = {
      ...rest,
      ack: (jobId, options) => {
        calls.push(jobId);
        return inner.ack(jobId, options);
      },
    };
    const acks = ackBatcher(driver);
    const ids = [uuidv7(), uuidv7()];
    await Promise.all(ids.map((id) => acks.ack(id, { workerId: 'w', claim: uuidv7() })));
    expect(calls).toEqual(ids);
  });
});
