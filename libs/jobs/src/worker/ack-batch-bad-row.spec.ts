import type { JobDriver } from '../driver/job-driver';
import { claimOf, type ClaimedJob } from '../driver/job-row';
import { memoryJobDriver } from '../driver/memory';
import { frozenClock } from '../testing/frozen-clock';
import { uuidv7 } from '../util/ids';
import { ackBatcher } from './ack-batcher';
import { enqueueRequest } from '../../test/requests';

/** A promise the test settles. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('ackBatcher: a batch with one ack the driver cannot take', () => {
  it('sends the batch again one ack at a time: the others land, the bad one fails alone', async () => {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    const held = gate();
    let poisoned = '';
    const sent: string[][] = [];
    // A statement-like ackMany: one item it cannot take fails the whole batch, as one SQL statement would.
    const driver: JobDriver = {
      ...inner,
      ackMany: async (items) => {
        sent.push(items.map((i) => i.jobId));
        await held.promise;
        if (items.some((i) => i.jobId === poisoned)) throw new Error('value out of range');
        return inner.ackMany!(items);
      },
      ack: async (jobId, options) => {
        if (jobId === poisoned) throw new Error('value out of range');
        return inner.ack(jobId, options);
      },
    };
    for (let i = 0; i < 5; i++) {
      await inner.enqueue(
        enqueueRequest({
          id: uuidv7(clock.now() + i),
          name: 'ack.bad-row',
          queue: 'q',
          input: { i },
          idempotencyKey: `k${i}`,
          runAt: clock.now(),
        }),
      );
    }
    const rows: readonly ClaimedJob[] = await inner.claim({
      workerId: 'w',
      slots: [{ queue: 'q', limit: 5 }],
      visibilityTimeoutMs: 30_000,
    });
    poisoned = rows[3]?.id ?? '';
    const batcher = ackBatcher(driver);
    // the first two leave alone (two batches may be on the wire); the next three queue and leave as ONE batch
    const answers = rows.map((r) =>
      batcher.ack(r.id, claimOf(r)).then(
        (landed) => (landed ? 'landed' : 'refused'),
        () => 'threw',
      ),
    );
    held.open();
    expect(await Promise.all(answers)).toEqual(['landed', 'landed', 'landed', 'threw', 'landed']);
    expect(sent.map((batch) => batch.length)).toEqual([1, 1, 3]);
    const states = await Promise.all(rows.map(async (r) => (await inner.get(r.id))?.state));
    expect(states).toEqual(['done', 'done', 'done', 'running', 'done']);
    expect(batcher.pending()).toBe(0);
  });
});
