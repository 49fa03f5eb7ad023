import type { AckManyItem, JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { uuidv7 } from '../util/ids';
import { ackBatcher, type AckReceiver } from './ack-batcher';

/** The end of the current turn of the event loop: every settled promise's handlers have run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A fresh ack for no claimed row: worker `w`, a new job id and claim token. */
const ackOf = (): AckManyItem => ({ jobId: uuidv7(), workerId: 'w', claim: uuidv7() });

/** A driver whose `ackMany` calls wait until the test releases them, each answering `answer` for its items. */
function heldBatches(answer: (items: readonly AckManyItem[]) => readonly boolean[]) {
  const batches: AckManyItem[][] = [];
  const waiting: (() => void)[] = [];
  const driver: JobDriver = {
    ...memoryJobDriver(),
    ackMany: (items) => {
      batches.push([...items]);
      return new Promise((resolve) => waiting.push(() => resolve(answer(items))));
    },
  };
  const releaseAll = async (): Promise<void> => {
    while (waiting.length > 0) {
      waiting.shift()?.();
      await turn();
    }
  };
  return { driver, batches, releaseAll };
}

describe('ackBatcher: its bounds', () => {
  it('sends at most 500 acks a statement; those beyond leave in the next', async () => {
    const held = heldBatches((items) => items.map(() => true));
    const acks = ackBatcher(held.driver);
    const answers = Array.from({ length: 504 }, () => {
      const { jobId, ...options } = ackOf();
      return acks.ack(jobId, options);
    });
    expect(held.batches.map((b) => b.length)).toEqual([1, 1]);
    expect(acks.pending()).toBe(504);
    await held.releaseAll();
    expect(held.batches.map((b) => b.length)).toEqual([1, 1, 500, 2]);
    expect(await Promise.all(answers)).toEqual(answers.map(() => true));
    expect(acks.pending()).toBe(0);
  });

  it('counts an ack the driver left unanswered as not landed', async () => {
    const held = heldBatches(() => [true]);
    const acks = ackBatcher(held.driver);
    const answers = [1, 2, 3, 4].map(() => {
      const { jobId, ...options } = ackOf();
      return acks.ack(jobId, options);
    });
    await held.releaseAll();
    expect(held.batches.map((b) => b.length)).toEqual([1, 1, 2]);
    expect(await Promise.all(answers)).toEqual([true, true, true, false]);
  });

  it('passes each ack’s duration on, and no duration when it has none', async () => {
    const held = heldBatches((items) => items.map(() => true));
    const acks = ackBatcher(held.driver);
    const [timed, untimed] = [ackOf(), ackOf()];
    const answers = [
      acks.ack(timed.jobId, { workerId: 'w', claim: timed.claim, durationMs: 12 }),
      acks.ack(untimed.jobId, { workerId: 'w', claim: untimed.claim }),
    ];
    await held.releaseAll();
    expect(await Promise.all(answers)).toEqual([true, true]);
    expect(held.batches).toStrictEqual([[{ ...timed, durationMs: 12 }], [untimed]]);
  });

  it('keeps a failed batch on the wire while its acks are sent again one by one', async () => {
    const alone: (() => void)[] = [];
    const driver: JobDriver = {
      ...memoryJobDriver(),
      ackMany: () => Promise.reject(new Error('value out of range')),
      ack: () => new Promise((resolve) => alone.push(() => resolve(true))),
    };
    const acks = ackBatcher(driver);
    // two lone acks fail at once (a batch of one is not sent again); the next three leave as one batch, which fails
    const answers = [1, 2, 3, 4, 5].map(() => {
      const { jobId, ...options } = ackOf();
      return acks.ack(jobId, options).then(
        (landed) => (landed ? 'landed' : 'refused'),
        () => 'threw',
      );
    });
    await turn();
    expect(alone).toHaveLength(3);
    expect(acks.pending()).toBe(3);
    for (const go of alone) go();
    expect(await Promise.all(answers)).toEqual(['threw', 'threw', 'landed', 'landed', 'landed']);
    await turn();
    expect(acks.pending()).toBe(0);
  });

  it('tells a receiver its answer through a driver without ackMany', async () => {
    const sent: string[] = [];
    const { ackMany: _none, ...rest } = memoryJobDriver();
    const driver: JobDriver = {
      ...rest,
      ack: (jobId) => {
        sent.push(jobId);
        return Promise.resolve(true);
      },
    };
    const told: boolean[] = [];
    const to: AckReceiver = {
      acked: (landed) => told.push(landed),
      ackFailed: () => told.push(false),
    };
    const item = ackOf();
    ackBatcher(driver).send(item, to);
    await turn();
    expect(sent).toEqual([item.jobId]);
    expect(told).toEqual([true]);
  });

  it('calls the driver’s ackMany as its method, on the driver', async () => {
    const driver: JobDriver = {
      ...memoryJobDriver(),
      ackMany(items) {
        return Promise.resolve(items.map(() => this === driver));
      },
    };
    const { jobId, ...options } = ackOf();
    expect(await ackBatcher(driver).ack(jobId, options)).toBe(true);
  });
});
